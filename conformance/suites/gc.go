package suites

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// The garbage-collection and shared-volume specs (profile gc, docs/spec/gc-volumes.md).
//
// `gc` acts on every terminal pod of a root, and the run's root holds terminal pods whose specs
// still read them: the `gc` specs use a root of their own (Framework.Isolated, the contract's
// global --root flag). `rm` names one pod, so its specs and the shared-volume specs use the run's
// root.

// podMarker is an environment variable naming the test pod, for the per-pod leak check.
const podMarker = "PODSPEC_CONFORMANCE_POD"

// markPod gives a container the variable PodLeaks looks for.
func markPod(short string) fw.ContainerOpt { return fw.WithEnv(podMarker, short) }

// podReport is the first report of a container's workload, from the pod's probe socket
// (readable after the pod is removed).
func podReport(p *fw.Pod, container string) *probe.Report {
	for _, ev := range p.Probe.Events() {
		if ev.Container == container && ev.Role == probe.RoleWorkload && ev.Type == probe.TypeReport {
			return ev.Report
		}
	}
	return nil
}

// expectNotFound asserts that a verb failed with NotFound.
func expectNotFound(res *fw.Result, err error, what string) {
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), what)
	ExpectWithOffset(1, res.ExitCode).To(Equal(runtimev1.ExitNotFound), "%s\n%s", what, res)
	ExpectWithOffset(1, res.Error).NotTo(BeNil(), "%s: an error report\n%s", what, res)
	ExpectWithOffset(1, res.Error.Code).To(Equal(runtimev1.CodeNotFound), "%s\n%s", what, res)
}

func (s *suite) registerGC() {
	s.registerRetention()
	s.registerRmRunning()
	s.registerCollector()
	s.registerSharedVolumes()
}

// read is one read of a pod during its removal.
type read struct {
	verb       string
	start, end time.Time
	res        *fw.Result
	err        error
}

// registerRetention: a terminal pod keeps everything until it is removed (GC-001); reads
// during the removal see all or NotFound (GC-005); afterwards nothing of it remains (GC-006) and
// every verb answers NotFound (GC-007).
func (s *suite) registerRetention() {
	const short = "gc-retain"
	sc := &fw.Scenario{
		Short:   short,
		Profile: spec.ProfileGC,
		Pod: fastBackoff(fw.NewPod()).RestartPolicy(v1alpha1.RestartPolicyOnFailure).EmptyDir("mem", true).
			Init("i1", fw.Exit(0).Stdout("init says hello"), markPod(short)).
			Main("app", fw.ExitAfter(0, ms(300)).Codes("1", "0").Stdout("app says hello"), markPod(short), fw.WithMount("mem", "/mem", false)),
	}
	readVerbs := map[string][]string{
		"status": {"status", "", "-o", "json"},
		"events": {"events", ""},
		"logs":   {"logs", "", "app"},
		"wait":   {"wait", ""},
	}
	argsFor := func(verb, pod string) []string {
		args := slices.Clone(readVerbs[verb])
		args[1] = pod
		return args
	}
	var (
		snapshot = map[string][]byte{}
		reads    []read
		rmRes    *fw.Result
	)
	s.ordered("A terminal pod until and after its removal", sc, func(get func() *fw.Outcome) {
		It("keeps its status, events and the logs of every container instance until it is removed", req(spec.GC001), func(ctx SpecContext) {
			out := get()
			// Some time after the pod ended, everything is still there and unchanged.
			time.Sleep(s.f.Tolerances().Reaction.Value)
			st, err := out.Pod.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(statusJSON(st)).To(Equal(statusJSON(out.Final)), "status of the terminal pod")
			evs, err := s.f.RT.Events(ctx, out.Pod.Name)
			Expect(err).NotTo(HaveOccurred())
			Expect(evs).To(Equal(out.Timeline.RuntimeEvents()), "the event history")
			for _, l := range []struct {
				container string
				previous  bool
				want      string
			}{{"i1", false, "init says hello"}, {"app", false, "app says hello"}, {"app", true, "app says hello"}} {
				got, err := s.f.RT.Logs(ctx, out.Pod.Name, l.container, l.previous)
				Expect(err).NotTo(HaveOccurred())
				Expect(string(got)).To(ContainSubstring(l.want), "logs of %s (previous instance: %v)", l.container, l.previous)
			}
			list, err := s.f.RT.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(slices.ContainsFunc(list, func(e fw.ListEntry) bool { return e.Name == out.Pod.Name })).To(BeTrue(), "list shows the terminal pod")
			if !s.f.Version.Has(spec.ProfileDefer) {
				return // defer containers are a profile of their own; without it there are none to keep
			}
			p, err := s.f.Start(ctx, short+"-defer", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
				Main("app", fw.Exit(0)).Defer("cleanup", fw.Exit(0).Stdout("defer says hello")))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			_, err = p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			time.Sleep(s.f.Tolerances().Reaction.Value)
			got, err := s.f.RT.Logs(ctx, p.Name, "cleanup", false)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(got)).To(ContainSubstring("defer says hello"), "logs of the defer container of a terminal pod")
		})
		It("never lets a read that runs while the pod is removed fail part-way or return partial data", req(spec.GC005), func(ctx SpecContext) {
			out := get()
			for verb := range readVerbs {
				res, err := s.f.RT.Exec(ctx, argsFor(verb, out.Pod.Name)...)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.ExitCode).To(Equal(runtimev1.ExitOK), "%s", res)
				snapshot[verb] = res.Stdout
			}
			var (
				mu      sync.Mutex
				wg      sync.WaitGroup
				running = map[string]int{}
			)
			readCtx, cancel := context.WithTimeout(ctx, out.Pod.PodTimeout())
			defer cancel()
			for verb := range readVerbs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for readCtx.Err() == nil {
						r := read{verb: verb, start: time.Now()}
						r.res, r.err = s.f.RT.Exec(readCtx, argsFor(verb, out.Pod.Name)...)
						r.end = time.Now()
						mu.Lock()
						reads = append(reads, r)
						running[verb]++
						mu.Unlock()
						if r.err != nil || r.res.ExitCode != runtimev1.ExitOK {
							return
						}
						// Leave the pod unread now and then, so that a remover waiting for
						// readers gets its turn; briefly, so that the readers together keep a
						// read running almost all the time and one overlaps even a fast rm (with
						// 30 ms gaps, a 15 ms read and four readers, a quick rm fell into a
						// moment when none ran).
						time.Sleep(5 * time.Millisecond)
					}
				}()
			}
			// Remove once every reader has read at least twice.
			Eventually(func() bool {
				mu.Lock()
				defer mu.Unlock()
				for verb := range readVerbs {
					if running[verb] < 2 {
						return false
					}
				}
				return true
			}).WithTimeout(out.Pod.PodTimeout()).WithPolling(20 * time.Millisecond).Should(BeTrue())
			var err error
			rmRes, err = s.f.RT.Remove(ctx, out.Pod.Name, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(rmRes.ExitCode).To(Equal(runtimev1.ExitOK), "rm of the terminal pod\n%s", rmRes)
			wg.Wait()
			rmStart := rmRes.Ended.Add(-rmRes.Duration)
			overlapping := 0
			for _, r := range reads {
				Expect(r.err).NotTo(HaveOccurred(), "%s", r.verb)
				if r.start.Before(rmRes.Ended) && r.end.After(rmStart) {
					overlapping++
				}
				switch r.res.ExitCode {
				case runtimev1.ExitOK:
					Expect(bytes.Equal(r.res.Stdout, snapshot[r.verb])).To(BeTrue(), "%s during the removal printed other data than before it:\n%s\nbefore:\n%s", r.verb, r.res, snapshot[r.verb])
				case runtimev1.ExitNotFound:
					Expect(r.res.Error).NotTo(BeNil(), "%s", r.res)
					Expect(r.res.Error.Code).To(Equal(runtimev1.CodeNotFound), "%s", r.res)
				default:
					Fail(fmt.Sprintf("%s during the removal failed part-way (neither the whole answer nor NotFound):\n%s", r.verb, r.res))
				}
			}
			Expect(overlapping).To(BeNumerically(">", 0), "no read ran while rm ran (%d reads)", len(reads))
		})
		It("deletes the pod's state, events, logs, containers, cgroups and emptyDir mounts", req(spec.GC006), func(ctx SpecContext) {
			out := get()
			res, err := s.f.RT.Remove(ctx, out.Pod.Name, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(BeElementOf(runtimev1.ExitOK, runtimev1.ExitNotFound), "%s", res)
			list, err := s.f.RT.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(slices.ContainsFunc(list, func(e fw.ListEntry) bool { return e.Name == out.Pod.Name })).To(BeFalse(), "list after the removal")
			for _, verb := range []string{"status", "events", "logs"} {
				res, err := s.f.RT.Exec(ctx, argsFor(verb, out.Pod.Name)...)
				expectNotFound(res, err, verb+" after the removal")
			}
			Eventually(func() error { return s.f.PodLeaks(ctx, out.Pod.Name, out.Pod.UID, podMarker+"="+short) }).
				WithContext(ctx).WithTimeout(s.f.Tolerances().Reaction.Value).WithPolling(100 * time.Millisecond).Should(Succeed())
		})
		It("answers every verb that names a removed pod with NotFound", req(spec.GC007), func(ctx SpecContext) {
			out := get()
			name := out.Pod.Name
			// The specs before this one removed the pod; run on its own (a label filter), it
			// removes the pod itself.
			rm, err := s.f.RT.Remove(ctx, name, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(rm.ExitCode).To(BeElementOf(runtimev1.ExitOK, runtimev1.ExitNotFound), "rm of the terminal pod\n%s", rm)
			verbs := [][]string{
				{"status", name, "-o", "json"}, {"events", name}, {"events", name, "--follow"}, {"logs", name, "app"},
				{"logs", name, "app", "--previous"}, {"wait", name, "--timeout", "5s"}, {"stop", name}, {"stop", name, "--force"},
				{"rm", name}, {"rm", name, "--force"},
			}
			if s.f.Version.Has(spec.ProfileUpdate) {
				verbs = append(verbs, []string{"update", name, out.Pod.Manifest})
			}
			for _, args := range verbs {
				res, err := s.f.RT.Exec(ctx, args...)
				expectNotFound(res, err, fmt.Sprint(args))
			}
		})
	})
}

// registerRmRunning: rm refuses a running pod (GC-008); rm --force stops it forcibly first
// (GC-009).
func (s *suite) registerRmRunning() {
	const short = "gc-rm-running"
	var p *fw.Pod
	Describe("rm of a pod that is not terminal", Ordered, ContinueOnFailure, profileLabel(spec.ProfileGC), func() {
		BeforeAll(func(ctx SpecContext) {
			s.requireProfile(spec.ProfileGC)
			var err error
			p, err = s.f.Start(ctx, short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(30).
				Main("app", fw.Loop().On("SIGTERM", "ignore"), markPod(short), fw.PreStop(fw.HookHandler(0, 0))))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			_, err = p.WaitFor(ctx, "app running", p.PodTimeout(), fw.AllStarted("app"))
			Expect(err).NotTo(HaveOccurred())
		})
		It("fails with Conflict without --force and changes nothing", req(spec.GC008), func(ctx SpecContext) {
			before, err := p.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			tlBefore, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			res, err := s.f.RT.Remove(ctx, p.Name, false)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(Equal(runtimev1.ExitConflict), "%s", res)
			Expect(res.Error).NotTo(BeNil(), "%s", res)
			Expect(res.Error.Code).To(Equal(runtimev1.CodeConflict), "%s", res)
			after, err := p.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(statusJSON(after)).To(Equal(statusJSON(before)), "status after the refused rm")
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(tl.RuntimeEvents()).To(Equal(tlBefore.RuntimeEvents()), "no event recorded by the refused rm")
			Expect(tl.NeverHappened("a signal to app", probeSignal("app", "SIGTERM"))).To(Succeed())
		})
		It("with --force, stops the pod with a forced stop (no preStop, no stop signal) before removing it", req(spec.GC009), func(ctx SpecContext) {
			res, err := s.f.RT.Remove(ctx, p.Name, true)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(Equal(runtimev1.ExitOK), "%s", res)
			// A graceful stop would run the preStop hook and send SIGTERM, which app ignores for
			// the 30 s grace period.
			Expect(res.Duration).To(BeNumerically("<", 30*time.Second), "rm --force took as long as a graceful stop\n%s", res)
			tl := fw.NewTimeline(p.Probe.Events(), nil)
			Expect(tl.NeverHappened("app's preStop hook", fw.HandlerEvent("app", "preStop", probe.TypeHandlerStart))).To(Succeed())
			Expect(tl.NeverHappened("SIGTERM reaching app", probeSignal("app", "SIGTERM"))).To(Succeed())
			Expect(tl.NeverHappened("app exiting on its own", fw.ProbeEvent("app", probe.TypeExit))).To(Succeed())
			st, err := s.f.RT.Exec(ctx, "status", p.Name, "-o", "json")
			expectNotFound(st, err, "status after rm --force")
			Eventually(func() error { return s.f.PodLeaks(ctx, p.Name, p.UID, podMarker+"="+short) }).
				WithContext(ctx).WithTimeout(s.f.Tolerances().Reaction.Value).WithPolling(100 * time.Millisecond).Should(Succeed())
		})
	})
}

// collectorRun is what the gc specs' BeforeAll saw.
type collectorRun struct {
	running, old, young     *fw.Pod
	oldFinished, youngEnded time.Time
	youngStarted            time.Time // young ran longer than olderThan
	olderThan               time.Duration
	first, second, last     []string  // removed by gc --older-than D, by gc, by gc after the stop
	firstStart              time.Time // when the first gc began
	youngAfterFirst         error     // status of young after the first gc
	runningAfter            []*fw.PodStatusView
	runningTimeline         *fw.Timeline // before the harness stopped it
	// runningErrs are the errors of reading, stopping and awaiting the running pod after a gc:
	// the GC-002 spec judges them (a runtime whose gc removed the pod makes them NotFound).
	runningErrs []error
}

// registerCollector: `gc` removes terminal pods by age and never a running one (GC-002, GC-003,
// GC-004), in a root of its own.
func (s *suite) registerCollector() {
	var r collectorRun
	Describe("gc", Ordered, ContinueOnFailure, profileLabel(spec.ProfileGC), func() {
		BeforeAll(func(ctx SpecContext) {
			s.requireProfile(spec.ProfileGC)
			iso, err := s.f.Isolated("gc")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { Expect(iso.CleanupPods(ctx)).To(Succeed()) })
			quick := func() *fw.PodBuilder {
				return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Exit(0))
			}
			r.running, err = iso.Start(ctx, "gc-running", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Loop()))
			Expect(err).NotTo(HaveOccurred())
			// Before any gc: the root must really be another one, or gc would remove the run's pods.
			list, err := s.f.RT.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(slices.ContainsFunc(list, func(e fw.ListEntry) bool { return e.Name == r.running.Name })).To(BeFalse(),
				"a pod created with another --root is listed in the run's root: the runtime ignores the global flag --root, and gc cannot be tested without removing other specs' pods")
			_, err = r.running.WaitFor(ctx, "app running", r.running.PodTimeout(), fw.AllStarted("app"))
			Expect(err).NotTo(HaveOccurred())

			r.olderThan = 2 * s.f.Tolerances().Reaction.Value
			r.old, err = iso.Start(ctx, "gc-old", quick())
			Expect(err).NotTo(HaveOccurred())
			st, err := r.old.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			r.oldFinished = *st.FinishedAt
			time.Sleep(time.Until(r.oldFinished.Add(r.olderThan + 200*time.Millisecond)))
			// young runs longer than D: it started more than D before the first gc but finished
			// less than D before it, so a gc that measured the age from the start would remove it.
			r.young, err = iso.Start(ctx, "gc-young", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
				Main("app", fw.ExitAfter(0, r.olderThan+time.Second)))
			Expect(err).NotTo(HaveOccurred())
			st, err = r.young.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			r.youngEnded = *st.FinishedAt
			r.youngStarted = *st.StartedAt

			r.firstStart = time.Now()
			r.first, _, err = iso.RT.GC(ctx, r.olderThan)
			Expect(err).NotTo(HaveOccurred())
			_, r.youngAfterFirst = r.young.Status(ctx)
			// What gc did to the running pod is the GC-002 spec's to judge: an error reading,
			// stopping or awaiting it is kept for the spec, not failed here.
			running := func(what string, err error) bool {
				if err != nil {
					r.runningErrs = append(r.runningErrs, fmt.Errorf("%s: %w", what, err))
				}
				return err == nil
			}
			if rs, err := r.running.Status(ctx); running("status of the running pod after gc --older-than", err) {
				r.runningAfter = append(r.runningAfter, rs)
			}
			r.second, _, err = iso.RT.GC(ctx, 0)
			Expect(err).NotTo(HaveOccurred())
			if rs, err := r.running.Status(ctx); running("status of the running pod after gc", err) {
				r.runningAfter = append(r.runningAfter, rs)
			}
			r.runningTimeline, err = r.running.Timeline(ctx)
			if running("timeline of the running pod after gc", err) && running("stop of the running pod after gc", r.running.Stop(ctx, nil, false)) {
				_, err = r.running.Wait(ctx)
				running("wait for the running pod after gc", err)
			}
			r.last, _, err = iso.RT.GC(ctx, 0)
			Expect(err).NotTo(HaveOccurred())
		})
		It("never removes a pod that is not terminal", req(spec.GC002), func() {
			Expect(r.runningErrs).To(BeEmpty(), "the running pod after gc")
			Expect(r.runningAfter).To(HaveLen(2), "the running pod's status after each gc")
			Expect(r.first).NotTo(ContainElement(r.running.Name))
			Expect(r.second).NotTo(ContainElement(r.running.Name))
			for _, st := range r.runningAfter {
				Expect(st.Phase).To(Equal(v1alpha1.PodRunning), "the running pod after gc\n%s", st)
				Expect(st.Condition(v1alpha1.PodTerminating)).To(Or(BeNil(), HaveField("Status", v1alpha1.ConditionFalse)), "%s", st)
			}
			tl := r.runningTimeline
			Expect(tl.NeverHappened("StopRequested before the harness's stop", fw.RuntimeEv(runtimev1.EventStopRequested, ""))).To(Succeed())
			Expect(tl.NeverHappened("a signal to app", fw.ProbeEvent("app", probe.TypeSignal))).To(Succeed())
			Expect(tl.NotRestarted("app")).To(Succeed())
		})
		It("with --older-than D, keeps a terminal pod that finished less than D before", req(spec.GC003), func() {
			Expect(r.firstStart.Sub(r.youngEnded)).To(BeNumerically("<", r.olderThan), "test set-up: young must have finished less than %v before the first gc", r.olderThan)
			Expect(r.firstStart.Sub(r.youngStarted)).To(BeNumerically(">=", r.olderThan), "test set-up: young must have started at least %v before the first gc", r.olderThan)
			Expect(r.first).NotTo(ContainElement(r.young.Name), "gc --older-than %v", r.olderThan)
			Expect(r.youngAfterFirst).NotTo(HaveOccurred(), "status of the young pod after gc --older-than %v", r.olderThan)
		})
		It("with --older-than D, removes every terminal pod that finished at least D before; without it, every terminal pod", req(spec.GC004), func(ctx SpecContext) {
			Expect(r.first).To(Equal([]string{r.old.Name}), "gc --older-than %v: the pod that finished %v before", r.olderThan, r.firstStart.Sub(r.oldFinished).Round(time.Millisecond))
			Expect(r.second).To(Equal([]string{r.young.Name}), "gc without --older-than: the other terminal pod")
			Expect(r.last).To(Equal([]string{r.running.Name}), "gc after the running pod ended")
			for _, p := range []*fw.Pod{r.old, r.young, r.running} {
				_, err := p.Status(ctx)
				var ce *fw.CommandError
				Expect(err).To(BeAssignableToTypeOf(ce), "status of %s after gc", p.Name)
				Expect(err.(*fw.CommandError).Result.ExitCode).To(Equal(runtimev1.ExitNotFound), "%v", err)
			}
		})
	})
}

// registerSharedVolumes: one directory per shared name, kept while a pod declares it and
// reclaimed by the last pod's policy (VOL-010 to VOL-013).
func (s *suite) registerSharedVolumes() {
	type volPod struct {
		pod    *fw.Pod
		report *probe.Report
	}
	pods := map[string]*volPod{}
	Describe("Shared volumes", Ordered, ContinueOnFailure, profileLabel(spec.ProfileGC), func() {
		BeforeAll(func(ctx SpecContext) {
			s.requireProfile(spec.ProfileGC)
			shared := s.f.RunID() + "-shared"
			mk := func(policy v1alpha1.ReclaimPolicy, w fw.Workload) *fw.PodBuilder {
				return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Shared("s", shared, policy).
					Main("app", w.Report(), fw.WithMount("s", "/s", false))
			}
			reclaimed := false
			DeferCleanup(func(ctx SpecContext) {
				for _, vp := range pods {
					Expect(vp.pod.Cleanup(ctx)).To(Succeed())
				}
				if reclaimed {
					return
				}
				// A run cut short may leave the volume retained: a last pod saying Delete reclaims it.
				p, err := s.f.Start(ctx, "vol-reclaim", mk(v1alpha1.ReclaimPolicyDelete, fw.Exit(0)))
				if err == nil {
					_, err = p.Wait(ctx)
				}
				Expect(err).NotTo(HaveOccurred(), "reclaim the shared volume")
				Expect(p.Cleanup(ctx)).To(Succeed())
			})
			run := func(short string, policy v1alpha1.ReclaimPolicy, w fw.Workload) {
				p, err := s.f.Start(ctx, short, mk(policy, w))
				pods[short] = &volPod{pod: p}
				Expect(err).NotTo(HaveOccurred())
				st, err := p.Wait(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(st.Phase).To(Equal(v1alpha1.PodSucceeded), "%s", st)
				pods[short].report = podReport(p, "app")
				Expect(pods[short].report).NotTo(BeNil(), "%s reports", short)
			}
			rm := func(short string) {
				res, err := s.f.RT.Remove(ctx, pods[short].pod.Name, false)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.ExitCode).To(Equal(runtimev1.ExitOK), "%s", res)
			}
			run("vol-a", v1alpha1.ReclaimPolicyDelete, fw.Exit(0).List("/s").Write("/s/a", "from-a"))
			run("vol-b", v1alpha1.ReclaimPolicyRetain, fw.Exit(0).Read("/s/a").Write("/s/b", "from-b"))
			rm("vol-a") // says Delete, but vol-b still declares the volume
			run("vol-c", v1alpha1.ReclaimPolicyRetain, fw.Exit(0).Read("/s/a").Read("/s/b"))
			rm("vol-b")
			rm("vol-c") // the last pod, Retain
			run("vol-d", v1alpha1.ReclaimPolicyDelete, fw.Exit(0).Read("/s/a").Read("/s/b"))
			rm("vol-d") // the last pod, Delete
			run("vol-e", v1alpha1.ReclaimPolicyDelete, fw.Exit(0).List("/s"))
			rm("vol-e")
			reclaimed = true
		})
		It("gives every pod declaring a shared name the same directory, empty when the first is created", req(spec.VOL010), func() {
			a := pods["vol-a"].report
			Expect(a.Dirs).To(HaveKeyWithValue("/s", BeEmpty()), "the first pod finds the volume empty")
			Expect(pods["vol-b"].report.Files).To(HaveKeyWithValue("/s/a", "from-a"), "the second pod sees what the first wrote")
		})
		It("keeps a shared volume while a pod declaring it exists, whatever the removed pod's policy", req(spec.VOL011), func() {
			Expect(pods["vol-c"].report.Files).To(And(HaveKeyWithValue("/s/a", "from-a"), HaveKeyWithValue("/s/b", "from-b")),
				"after removing a pod saying Delete while another pod declared the volume")
		})
		It("keeps the volume and its content when the last pod says Retain", req(spec.VOL013), func() {
			Expect(pods["vol-d"].report.Files).To(And(HaveKeyWithValue("/s/a", "from-a"), HaveKeyWithValue("/s/b", "from-b")),
				"a pod created after the last one (Retain) was removed")
		})
		It("deletes the volume when the last pod says Delete", req(spec.VOL012), func() {
			Expect(pods["vol-e"].report.Dirs).To(HaveKeyWithValue("/s", BeEmpty()), "a pod created after the last one (Delete) was removed finds the volume empty")
		})
	})
}
