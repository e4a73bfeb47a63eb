package suites

import (
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

func (s *suite) registerInit() {
	// init-1, a sidecar, init-2, a second sidecar, then two main containers; app fails once and
	// is restarted. Each sidecar has a startup probe whose first attempt comes 1 s after its
	// process started, so that it runs for a while before it is Started: the entry after it (and
	// the main containers, after side-2) must wait for the Started, not for the process.
	sidecarStartup := fw.Startup(fw.CheckExit(0), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 30, InitialDelaySeconds: 1})
	order := &fw.Scenario{
		Short: "init-order",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Init("init-1", fw.ExitAfter(0, ms(200))).
			Sidecar("side-1", fw.Loop(), sidecarStartup).
			Init("init-2", fw.ExitAfter(0, ms(200))).
			Sidecar("side-2", fw.Loop(), sidecarStartup).
			Main("app", fw.ExitAfter(0, ms(300)).Codes("1", "0")).
			Main("app2", fw.ExitAfter(0, ms(1200))),
	}
	// startupPassed matches a sidecar's successful startup check: from then on it is Started.
	startupPassed := func(c string) fw.Matcher {
		return func(e fw.Entry) bool {
			return fw.ProbeEvent(c, probe.TypeCheck)(e) && e.Probe.Handler == "startup" && e.Probe.Result == "success"
		}
	}
	s.ordered("Init containers run one at a time, in order, before the main containers", order, func(get func() *fw.Outcome) {
		It("starts each entry of initContainers only after the previous regular init container exited 0", req(spec.HB001), func() {
			tl := get().Timeline
			Expect(tl.ExitsBeforeStart("init-1", "side-1")).To(Succeed())
			Expect(tl.ExitsBeforeStart("init-2", "app")).To(Succeed())
			Expect(tl.ExitsBeforeStart("init-2", "app2")).To(Succeed())
		})
		It("starts the entry after a sidecar only once the sidecar is Started, and keeps the sidecar running", req(spec.HB002), func() {
			tl := get().Timeline
			Expect(tl.Before("side-1 Started before init-2 starts", fw.RuntimeEv(runtimev1.EventContainerStarted, "side-1"), fw.ProbeEvent("init-2", probe.TypeStart))).To(Succeed())
			Expect(tl.Before("side-1's startup probe passed (side-1 Started) before init-2 starts", startupPassed("side-1"), fw.ProbeEvent("init-2", probe.TypeStart))).To(Succeed())
			Expect(tl.StartsBefore("side-1", "init-2")).To(Succeed())
			Expect(tl.Overlaps("side-1", "init-2")).To(Succeed())
		})
		It("starts main containers only after every init container exited 0 and every sidecar is Started", req(spec.HB003), func() {
			tl := get().Timeline
			for _, m := range []string{"app", "app2"} {
				Expect(tl.ExitsBeforeStart("init-1", m)).To(Succeed())
				Expect(tl.ExitsBeforeStart("init-2", m)).To(Succeed())
				for _, sc := range []string{"side-1", "side-2"} {
					Expect(tl.Before(sc+"'s startup probe passed ("+sc+" Started) before "+m+" starts", startupPassed(sc), fw.ProbeEvent(m, probe.TypeStart))).To(Succeed())
				}
			}
		})
		It("never runs an init container again after it exited 0, even when a main container restarts", req(spec.INIT001), func() {
			tl := get().Timeline
			Expect(tl.Restarted("app", 1)).To(Succeed(), "the scenario needs a main container restart")
			Expect(tl.NotRestarted("init-1")).To(Succeed())
			Expect(tl.NotRestarted("init-2")).To(Succeed())
		})
		It("sets the condition Initialized to True", req(spec.EXIT010), func() {
			c := get().Final.Condition(v1alpha1.PodInitialized)
			Expect(c).NotTo(BeNil(), "condition Initialized\n%s", get().Final)
			Expect(c.Status).To(Equal(v1alpha1.ConditionTrue))
			// It became True only once side-2, the last sidecar, was Started: not before side-2's
			// process started.
			started, ok := get().Timeline.First(fw.RuntimeEv(runtimev1.EventContainerStarted, "side-2"))
			Expect(ok).To(BeTrue(), "side-2's ContainerStarted\n%s", get().Timeline)
			Expect(c.LastTransitionTime).NotTo(BeNil(), "Initialized lastTransitionTime\n%s", get().Final)
			Expect(c.LastTransitionTime.Before(started.Time)).To(BeFalse(),
				"Initialized became True at %s, before side-2 started at %s: before every sidecar was Started\n%s", c.LastTransitionTime, started.Time, get().Timeline)
		})
		It("stops sidecars only after every main container has exited", req(spec.HB014), func() {
			tl := get().Timeline
			for _, m := range []string{"app", "app2"} {
				for _, sc := range []string{"side-1", "side-2"} {
					Expect(endedBefore(tl, m, sc+"'s stop signal", fw.ProbeEvent(sc, probe.TypeSignal))).To(Succeed())
				}
			}
		})
		It("makes the pod terminal only after every process ended", req(spec.HB016), func() {
			Expect(allEndedBeforeFinish(get().Timeline)).To(Succeed())
		})
		It("emits ContainerExited events in non-decreasing order of finishedAt", req(spec.STAT007), func() {
			evs := get().Timeline.RuntimeEvents()
			var last *runtimev1.Event
			for i := range evs {
				if evs[i].Type != runtimev1.EventContainerExited {
					continue
				}
				if last != nil {
					Expect(evs[i].Time.Before(last.Time)).To(BeFalse(), "ContainerExited #%d of %s is earlier than #%d of %s\n%s", evs[i].Seq, evs[i].Container, last.Seq, last.Container, get().Timeline)
				}
				last = &evs[i]
			}
			// The finishedAt of each container's last instance, in the order of the
			// ContainerExited events that recorded them, never decreases (event times alone may
			// be clamped to their order).
			lastSeq := map[string]int64{}
			for _, ev := range evs {
				if ev.Type == runtimev1.EventContainerExited {
					lastSeq[ev.Container] = ev.Seq
				}
			}
			var prev *runtimev1.Event
			var prevAt time.Time
			for i := range evs {
				ev := &evs[i]
				t := get().Final.Terminated(ev.Container)
				if ev.Type != runtimev1.EventContainerExited || lastSeq[ev.Container] != ev.Seq || t == nil {
					continue
				}
				if prev != nil {
					Expect(t.FinishedAt.Before(prevAt)).To(BeFalse(), "the finishedAt of %s (%v), recorded by ContainerExited #%d, is earlier than that of %s (%v), recorded by ContainerExited #%d before it\n%s",
						ev.Container, t.FinishedAt, ev.Seq, prev.Container, prevAt, prev.Seq, get().Timeline)
				}
				prev, prevAt = ev, t.FinishedAt
			}
			for _, c := range []string{"init-1", "init-2", "app", "app2", "side-1", "side-2"} {
				t := get().Final.Terminated(c)
				Expect(t).NotTo(BeNil(), "%s", c)
				e, ok := get().Timeline.Last(fw.RuntimeEv(runtimev1.EventContainerExited, c))
				Expect(ok).To(BeTrue(), "%s", c)
				Expect(e.Time.Equal(t.FinishedAt)).To(BeTrue(), "%s: ContainerExited at %v, finishedAt %v", c, e.Time, t.FinishedAt)
			}
		})
	})

	fails := &fw.Scenario{
		Short: "init-fails",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Init("init-1", fw.ExitAfter(3, ms(100))).
			Main("app", fw.Loop()),
	}
	s.ordered("A regular init container that fails terminally", fails, func(get func() *fw.Outcome) {
		It("ends the pod with termination reason Failed and starts no main container", req(spec.INIT003), func() {
			out := get()
			Expect(out.Timeline.NeverStarted("app")).To(Succeed())
			Expect(out.Final.Reason).To(Equal("Failed"), "status.reason\n%s", out.Final)
		})
		It("reports the never-started main container as skipped with the pod's termination reason", req(spec.MAIN003), func() {
			c := get().Final.Container("app")
			Expect(c).NotTo(BeNil())
			Expect(c.State.Skipped).NotTo(BeNil(), "state.skipped\n%s", get().Final)
			Expect(c.State.Skipped.Reason).To(Equal("Failed"))
		})
		It("fails the pod, decided by the init container, with its exit code", req(spec.EXIT014NoFailure, spec.EXIT015FirstFailure, spec.EXIT017ExitCode), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodFailed), "%s", st)
			Expect(st.DecidedBy).To(Equal("init-1"))
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(3)))
		})
	})

	always := &fw.Scenario{
		Short: "init-always",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyAlways)).
			Init("init-1", fw.ExitAfter(0, ms(100)).Codes("1", "0")).
			Main("app", fw.ExitAfter(0, ms(200)), fw.WithRestartPolicy(v1alpha1.RestartPolicyNever)),
	}
	s.ordered("A regular init container under restart policy Always", always, func(get func() *fw.Outcome) {
		It("is restarted after a failure as under OnFailure, and then lets the pod proceed", req(spec.INIT002), func() {
			tl := get().Timeline
			Expect(tl.Restarted("init-1", 1)).To(Succeed())
			Expect(tl.ExitsBeforeStart("init-1", "app")).To(Succeed())
			Expect(len(tl.Instances("init-1"))).To(Equal(2), "exited 0 on its second run, so it is not run a third time\n%s", tl)
		})
		It("uses the container's own restart policy over the pod's", req(spec.RST002), func() {
			out := get()
			Expect(out.Timeline.NotRestarted("app")).To(Succeed(), "app's own restartPolicy Never wins over the pod's Always")
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", out.Final)
		})
	})
}
