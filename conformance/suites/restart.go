package suites

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

func (s *suite) registerRestart() {
	// A container that runs longer than resetAfterSeconds before each failure: every restart is
	// the first since a reset, so each waits initialSeconds, never initialSeconds × factor.
	const resetInitial, resetFactor = 1.0, 4.0
	reset := &fw.Scenario{
		Short: "backoff-reset",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(resetInitial, resetFactor, 30, 0.5).
			Main("a", fw.ExitAfter(0, ms(1000)).Codes("1", "1", "0")),
	}
	s.ordered("Back-off reset", reset, func(get func() *fw.Outcome) {
		It("resets the back-off after an instance ran resetAfterSeconds, so the next restart is the first", req(spec.RST009), func() {
			tl := get().Timeline
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "a"))
			Expect(starts).To(HaveLen(3), "%s", tl)
			tol := s.f.Tolerances()
			gap := starts[2].Time.Sub(exits[1].Time)
			Expect(gap).To(BeNumerically("<", time.Duration(resetInitial*resetFactor*float64(time.Second))-tol.EarlyMargin.Value),
				"the second restart waited %v: the back-off was not reset (initial %vs, factor %v)\n%s", gap, resetInitial, resetFactor, tl)
			Expect(gap).To(BeNumerically("<=", time.Duration(resetInitial*float64(time.Second))+tol.Reaction.Value), "second restart after %v\n%s", gap, tl)
		})
	})

	// A factor of 4 from 0.5 s reaches maxSeconds 1 s at the second restart: the delays are
	// 0.5 s, 1 s, 1 s. A runtime that never caps the back-off waits 2 s and then 8 s, far past
	// the third restart's cap plus the reaction tolerance.
	const capInitial, capFactor, capMax = 0.5, 4.0, 1.0
	capped := &fw.Scenario{
		Short: "backoff-cap",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure).Backoff(capInitial, capFactor, capMax, 600).
			Main("a", fw.ExitAfter(0, ms(100)).Codes("1", "1", "1", "0")),
	}
	s.ordered("Back-off cap", capped, func(get func() *fw.Outcome) {
		It("caps the back-off at maxSeconds, from the restart whose delay would exceed it on", req(spec.RST008Growth, spec.RST008Cap, spec.RST008FromFinishedAt), func() {
			tl := get().Timeline
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "a"))
			Expect(starts).To(HaveLen(4), "%s", tl)
			Expect(len(exits)).To(BeNumerically(">=", 3), "%s", tl)
			tol := s.f.Tolerances()
			for n := 1; n <= 3; n++ {
				want := min(capInitial*math.Pow(capFactor, float64(n-1)), capMax)
				delay := time.Duration(want * float64(time.Second))
				gap := starts[n].Time.Sub(exits[n-1].Time)
				Expect(gap).To(BeNumerically(">=", delay-tol.EarlyMargin.Value), "restart %d came %v after the exit, before its back-off %v (%s %v)\n%s", n, gap, delay, tol.EarlyMargin.Name, tol.EarlyMargin.Value, tl)
				Expect(gap).To(BeNumerically("<=", delay+tol.Reaction.Value), "restart %d came %v after the exit, later than its back-off %v capped at maxSeconds %vs + %s %v\n%s", n, gap, delay, capMax, tol.Reaction.Name, tol.Reaction.Value, tl)
			}
		})
	})

	// Delays of 2 s and 4 s: much longer than creating a container (0.3–1 s here), so a runtime
	// that skips the back-off (mutant no_backoff) restarts well before the earliest allowed moment.
	const initial, factor = 2.0, 2.0
	sc := &fw.Scenario{
		Short: "restart",
		Pod: fw.NewPod().ExitPolicy(v1alpha1.ExitPolicyAny).RestartPolicy(v1alpha1.RestartPolicyOnFailure).
			Backoff(initial, factor, 10, 600).EmptyDir("data", false).
			Main("a", fw.ExitAfter(0, ms(200)).Codes("1", "2", "0").Report().Read("/data/kept").Write("/data/kept", "yes"),
				fw.WithMount("data", "/data", false)).
			Main("other", fw.Loop()),
	}
	s.ordered("Restarts", sc, func(get func() *fw.Outcome) {
		reports := func() []*probe.Report {
			var out []*probe.Report
			for _, e := range get().Timeline.All(fw.ProbeEvent("a", probe.TypeReport)) {
				out = append(out, e.Probe.Report)
			}
			Expect(out).To(HaveLen(3), "a reports once per instance\n%s", get().Timeline)
			return out
		}
		It("runs every restart as a new instance with a fresh root filesystem and a new containerID", req(spec.RST004FreshRootfs, spec.RST004NewContainerId, spec.IMG009), func() {
			for i, r := range reports() {
				Expect(r.FreshRootfs).To(BeTrue(), "instance %d saw the marker an earlier instance left in its root filesystem", i+1)
				Expect(r.RootfsWritable).To(BeTrue(), "instance %d could not write its root filesystem", i+1)
			}
			ids := map[string]bool{}
			for _, e := range get().Timeline.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "a")) {
				Expect(ids).NotTo(HaveKey(e.Runtime.ContainerID), "containerID reused\n%s", get().Timeline)
				ids[e.Runtime.ContainerID] = true
			}
			Expect(ids).To(HaveLen(3))
		})
		It("keeps the pod's volumes and their content across restarts", req(spec.RST005, spec.VOL005), func() {
			rs := reports()
			Expect(rs[0].Files).NotTo(HaveKey("/data/kept"), "the emptyDir starts empty")
			Expect(rs[1].Files).To(HaveKeyWithValue("/data/kept", "yes"))
			Expect(rs[2].Files).To(HaveKeyWithValue("/data/kept", "yes"))
		})
		It("counts restarts and keeps the previous instance's termination in lastState", req(spec.RST006, spec.STAT008), func() {
			c := get().Final.Container("a")
			Expect(c.RestartCount).To(BeEquivalentTo(2), "%s", get().Final)
			Expect(c.LastState.Terminated).NotTo(BeNil(), "lastState.terminated\n%s", get().Final)
			Expect(c.LastState.Terminated.ExitCode).To(HaveValue(BeEquivalentTo(2)), "the previous instance exited 2")
		})
		It("starts the next instance only after the previous one exited", req(spec.HB008), func() {
			inst := get().Timeline.Instances("a")
			Expect(inst).To(HaveLen(3))
			for i := 1; i < len(inst); i++ {
				Expect(inst[i-1].End.IsZero()).To(BeFalse(), "instance %d has an end\n%s", i, get().Timeline)
				Expect(inst[i-1].End.Before(inst[i].Start)).To(BeTrue(), "instance %d ended before instance %d started\n%s", i, i+1, get().Timeline)
			}
		})
		It("waits the back-off delay after each exit, neither shorter nor much longer", req(spec.RST008Growth, spec.RST008FromFinishedAt, spec.TIME001, spec.TIME002), func() {
			tl := get().Timeline
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "a"))
			starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, "a"))
			Expect(len(exits)).To(BeNumerically(">=", 2))
			Expect(starts).To(HaveLen(3))
			tol := s.f.Tolerances()
			delay := time.Duration(initial * float64(time.Second))
			for n := 1; n <= 2; n++ {
				gap := starts[n].Time.Sub(exits[n-1].Time)
				Expect(gap).To(BeNumerically(">=", delay-tol.EarlyMargin.Value), "restart %d came %v after the exit, before its back-off %v (%s %v)\n%s", n, gap, delay, tol.EarlyMargin.Name, tol.EarlyMargin.Value, tl)
				Expect(gap).To(BeNumerically("<=", delay+tol.Reaction.Value), "restart %d came %v after the exit, later than its back-off %v + %s %v\n%s", n, gap, delay, tol.Reaction.Name, tol.Reaction.Value, tl)
				delay = time.Duration(float64(delay) * factor)
			}
		})
		It("keeps restarting containers after the command that created the pod returned", req(spec.SUP001), func() {
			out := get()
			restarts := out.Timeline.All(func(e fw.Entry) bool {
				return fw.RuntimeEv(runtimev1.EventContainerStarted, "a")(e) && e.Runtime.RestartCount != nil && *e.Runtime.RestartCount > 0
			})
			Expect(restarts).To(HaveLen(2), "%s", out.Timeline)
			for _, r := range restarts {
				Expect(r.Time.After(out.Pod.RunResult.Ended)).To(BeTrue(), "restart at %v, run returned at %v", r.Time, out.Pod.RunResult.Ended)
			}
		})
		It("keeps the pod's UID across container restarts", req(spec.ID005), func() {
			out := get()
			Expect(out.Final.UID).To(Equal(out.Pod.UID))
			for _, ev := range out.Timeline.RuntimeEvents() {
				Expect(ev.PodUID).To(Equal(out.Pod.UID), "event #%d %s", ev.Seq, ev.Type)
			}
		})
		It("leaves a hostPath volume's directory as it was", req(spec.VOL007), func() {
			fi, err := os.Stat(get().Pod.Dir)
			Expect(err).NotTo(HaveOccurred(), "the hostPath directory still exists")
			Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o777)), "its permissions are unchanged")
			st, ok := fi.Sys().(*syscall.Stat_t)
			Expect(ok).To(BeTrue())
			Expect(int(st.Uid)).To(Equal(os.Getuid()), "its owner is unchanged")
			_, err = os.Stat(filepath.Join(get().Pod.Dir, "a.instances"))
			Expect(err).NotTo(HaveOccurred(), "files the containers wrote into it are still there")
		})
		It("does not stop, signal or restart another container when one restarts", req(spec.RST007), func() {
			tl := get().Timeline
			Expect(tl.NotRestarted("other")).To(Succeed())
			Expect(tl.Before("other is signalled only once the policy fired", fw.RuntimeEv(runtimev1.EventPolicyFired, ""), fw.ProbeEvent("other", probe.TypeSignal))).To(Succeed())
		})
	})

	s.registerRestartAfterKill()
}

// registerRestartAfterKill: a restart of an instance the runtime itself ends (a failed liveness
// probe: its stop signal, the grace period, SIGKILL) waits for that instance's exit too, not only
// a restart after the workload's own exit (HB-008). a's first instance fails its liveness probe
// (the marker "healthy" is missing) and takes its time to exit on SIGTERM: twice the Reaction
// tolerance, far longer than the 0.2 s back-off plus an instance's creation, so a runtime that
// restarts as soon as it sent the stop signal starts the second instance while the first still
// runs. The Drive creates the marker once the first instance got its SIGTERM (the second one
// stays healthy: its probe's first attempt comes 1 s after it started) and stops the pod once a
// second instance started, which a correct runtime and a wrong one both reach; the It judges
// from what each instance reported of its own start and exit.
func (s *suite) registerRestartAfterKill() {
	linger := func() time.Duration {
		tol := fw.DefaultTolerances()
		if s.f != nil {
			tol = s.f.Tolerances()
		}
		return 2 * tol.Reaction.Value
	}
	sc := &fw.Scenario{
		Short: "restart-killed",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyAlways).Grace(30)).
			Main("a", fw.Loop().Counted(),
				fw.Liveness(fw.CheckMarker("healthy"), fw.ProbeTiming{InitialDelaySeconds: 1, PeriodSeconds: 1, FailureThreshold: 1})).
			Mutate(func(p *v1alpha1.Pod) {
				// Built when the pod is submitted, with the run's tolerances: SIGTERM makes an
				// instance exit 0 after the linger time.
				c := &p.Spec.Containers[0]
				c.Command = append(c.Command, "-on", "SIGTERM=exit:"+linger().String()+":0")
			}),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			// Bounded waits, not the pod timeout: a runtime that never kills or never restarts
			// a still gets its pod stopped, and the spec, not the scenario, reports it.
			if _, err := p.WaitFor(ctx, "a's first SIGTERM", p.PodTimeout()/4, func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("a", "SIGTERM"))
				return ok
			}); err != nil && ctx.Err() != nil {
				return err
			}
			if err := p.Touch("healthy"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "a's second instance to start", p.PodTimeout()/4, func(tl *fw.Timeline) bool {
				return len(workloadReports(tl, "a", probe.TypeStart)) >= 2
			}); err != nil && ctx.Err() != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Restarts after a liveness kill", sc, func(get func() *fw.Outcome) {
		It("starts the next instance only after the instance the runtime killed has exited", req(spec.HB008), func() {
			tl := get().Timeline
			starts := workloadReports(tl, "a", probe.TypeStart)
			exits := workloadReports(tl, "a", probe.TypeExit)
			Expect(len(starts)).To(BeNumerically(">=", 2), "a's first instance failed its liveness probe and its restart policy is Always: a second instance must start\n%s", tl)
			for n := 1; n < len(starts); n++ {
				next, ok := starts[n+1]
				if !ok {
					break
				}
				end, ok := exits[n]
				Expect(ok).To(BeTrue(), "instance %d of a reported no exit, yet instance %d started: SIGTERM makes it exit %v later, well within the grace period\n%s", n, n+1, linger(), tl)
				Expect(end.Before(next)).To(BeTrue(), "instance %d of a started %v before instance %d, which the runtime killed for its failed liveness probe, had exited\n%s", n+1, end.Sub(next).Round(time.Millisecond), n, tl)
			}
		})
	})
}

// workloadReports maps each instance number of a counted container (1-based, from the instance
// counter on the probe volume) to the arrival time of its workload's report of type typ (start,
// exit): what each instance itself said, whatever the runtime's events say.
func workloadReports(tl *fw.Timeline, container, typ string) map[int]time.Time {
	out := map[int]time.Time{}
	for _, e := range tl.All(fw.ProbeEvent(container, typ)) {
		if e.Probe.Role != probe.RoleWorkload || e.Probe.Instance < 1 {
			continue
		}
		if _, seen := out[e.Probe.Instance]; !seen {
			out[e.Probe.Instance] = e.Time
		}
	}
	return out
}
