package suites

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// exited is a timeline condition: every named container's last instance has ended.
func exited(names ...string) func(*fw.Timeline) bool {
	return func(tl *fw.Timeline) bool {
		for _, n := range names {
			inst := tl.Instances(n)
			if len(inst) == 0 || inst[len(inst)-1].End.IsZero() {
				return false
			}
		}
		return true
	}
}

// runtimeExited holds once the runtime has recorded ContainerExited for the last instance of
// each named container (the probe's exit report comes before the runtime has reaped it).
func runtimeExited(names ...string) func(*fw.Timeline) bool {
	return func(tl *fw.Timeline) bool {
		for _, n := range names {
			// Every instance either source knows of: one the runtime stopped before its workload
			// reported has a ContainerStarted and no workload start (Timeline.Consistent).
			known := max(len(tl.Instances(n)), len(tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, n))))
			if known == 0 || len(tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, n))) < known {
				return false
			}
		}
		return true
	}
}

func (s *suite) registerDependencies() {
	deps := &fw.Scenario{
		Short: "deps",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("db", fw.Loop(), fw.Readiness(fw.CheckMarker("db-ready"), fw.ProbeTiming{PeriodSeconds: 1})).
			Main("web", fw.ExitAfter(0, ms(200)), fw.DependsOn("db", v1alpha1.ConditionReady)).
			Main("worker", fw.ExitAfter(0, ms(200))).
			Main("early", fw.ExitAfter(0, ms(100)), fw.DependsOn("worker", v1alpha1.ConditionStarted)).
			Main("job", fw.ExitAfter(0, ms(300))).
			Main("report", fw.ExitAfter(0, ms(100)), fw.DependsOn("job", v1alpha1.ConditionCompleted)),
		// Everything that does not wait for db runs first; db becomes ready only later, then
		// web runs, then the pod is stopped (db loops).
		Drive: func(ctx context.Context, p *fw.Pod) error {
			// A runtime that holds them back for db (which is never Ready before db-ready is
			// touched) never lets them finish: go on after a quarter of the pod timeout, so that
			// the HB-018 spec, not the scenario, reports that.
			if _, err := p.WaitFor(ctx, "worker, early, job and report to finish", p.PodTimeout()/4, exited("worker", "early", "job", "report")); err != nil && ctx.Err() != nil {
				return err
			}
			time.Sleep(500 * time.Millisecond) // web must still be waiting for db
			if err := p.Touch("db-ready"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "web to finish", p.PodTimeout(), exited("web")); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("dependsOn", deps, func(get func() *fw.Outcome) {
		It("starts a dependent only after each dependency reached its condition", req(spec.HB004), func() {
			tl := get().Timeline
			Expect(tl.Before("db Ready before web starts", fw.RuntimeEv(runtimev1.EventContainerReady, "db"), fw.ProbeEvent("web", probe.TypeStart))).To(Succeed())
			Expect(tl.Before("worker Started before early starts", fw.RuntimeEv(runtimev1.EventContainerStarted, "worker"), fw.ProbeEvent("early", probe.TypeStart))).To(Succeed())
			Expect(tl.ExitsBeforeStart("job", "report")).To(Succeed())
		})
		It("holds condition Completed once the dependency exited 0", req(spec.DEP010), func() {
			out := get()
			Expect(out.Timeline.Started("report")).To(BeTrue(), "report depends on job Completed\n%s", out.Timeline)
			Expect(out.Final.Terminated("job").ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
		It("does not delay a main container for one it does not depend on", req(spec.HB018), func() {
			tl := get().Timeline
			for _, c := range []string{"worker", "early", "job", "report"} {
				Expect(tl.Before(c+" starts before db is Ready", fw.ProbeEvent(c, probe.TypeStart), fw.RuntimeEv(runtimev1.EventContainerReady, "db"))).To(Succeed())
			}
		})
		It("reports a container Ready only after its readiness probe succeeded", req(spec.DEP008SuccessThreshold), func() {
			tl := get().Timeline
			success := func(e fw.Entry) bool {
				return fw.ProbeEvent("db", probe.TypeCheck)(e) && e.Probe.Result == "success"
			}
			Expect(tl.Before("a successful readiness check before db is Ready", success, fw.RuntimeEv(runtimev1.EventContainerReady, "db"))).To(Succeed())
		})
		It("starts readiness checks only once the container is Started", req(spec.HB007), func() {
			tl := get().Timeline
			Expect(tl.Before("db Started before its first readiness check", fw.RuntimeEv(runtimev1.EventContainerStarted, "db"), fw.ProbeEvent("db", probe.TypeCheck))).To(Succeed())
		})
	})

	// web depends on db Ready; db becomes unready while web runs; web's restart must not wait.
	restart := &fw.Scenario{
		Short: "deps-restart",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Main("db", fw.Loop(), fw.Readiness(fw.CheckMarker("db-ready"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1})).
			Main("web", fw.Loop().Codes("1", "loop").WaitFor("db-down"), fw.DependsOn("db", v1alpha1.ConditionReady)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := p.Touch("db-ready"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "web to start", p.PodTimeout(), fw.AllStarted("web")); err != nil {
				return err
			}
			if err := p.Remove("db-ready"); err != nil {
				return err
			}
			// db is unready once a readiness check failed (failureThreshold 1).
			if _, err := p.WaitFor(ctx, "a failing readiness check of db", p.PodTimeout(), func(tl *fw.Timeline) bool {
				checks := tl.All(fw.ProbeEvent("db", probe.TypeCheck))
				return len(checks) > 0 && checks[len(checks)-1].Probe.Result == "failure" && tl.Started("web")
			}); err != nil {
				return err
			}
			time.Sleep(500 * time.Millisecond) // let the runtime record db as not ready
			if err := p.Touch("db-down"); err != nil {
				return err
			}
			// web restarts after its 0.2 s back-off. A runtime whose restart waits for db to be
			// Ready again never restarts it: stop the pod anyway, so that the DEP-011 spec, not
			// the scenario, reports that.
			if _, err := p.WaitFor(ctx, "web's second instance", p.PodTimeout()/4, func(tl *fw.Timeline) bool { return len(tl.Instances("web")) >= 2 }); err != nil && ctx.Err() != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A dependent restarting while its dependency is not ready", restart, func(get func() *fw.Outcome) {
		It("restarts the dependent without waiting for the dependency's condition again", req(spec.DEP011), func() {
			tl := get().Timeline
			Expect(tl.Restarted("web", 1)).To(Succeed())
			inst := tl.Instances("web")
			readies := tl.All(fw.RuntimeEv(runtimev1.EventContainerReady, "db"))
			for _, r := range readies {
				if r.Time.After(inst[0].Start) {
					Expect(r.Time.After(inst[1].Start)).To(BeTrue(), "web's restart waited for db to become Ready again\n%s", tl)
				}
			}
		})
	})

	fail := &fw.Scenario{
		Short: "deps-fail",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("job", fw.ExitAfter(3, ms(200))).
			Main("dep", fw.Loop(), fw.DependsOn("job", v1alpha1.ConditionCompleted)).
			Main("dep2", fw.Loop(), fw.DependsOn("dep", v1alpha1.ConditionStarted)).
			Main("other", fw.ExitAfter(0, ms(600))),
		// The pod ends on its own once other has exited and dep and dep2 have failed. A runtime
		// that leaves dep2 waiting for its failed dependency never ends it: stop the pod after a
		// bounded wait (not the pod timeout), so that the DEP-013 spec, not the scenario, reports
		// that.
		Drive: endsOrIsStopped,
	}
	s.ordered("A dependency that fails before its condition held", fail, func(get func() *fw.Outcome) {
		expectDependencyFailed := func(out *fw.Outcome, name string) {
			Expect(out.Timeline.NeverStarted(name)).To(Succeed())
			t := out.Final.Terminated(name)
			Expect(t).NotTo(BeNil(), "%s must be terminated\n%s", name, out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonDependencyFailed))
			Expect(t.ExitCode).To(BeNil(), "no exitCode for a container that never ran")
			Expect(t.Signal).To(BeNil(), "no signal for a container that never ran")
		}
		It("fails the dependents at once with DependencyFailed and neither exitCode nor signal", req(spec.DEP012), func() {
			out := get()
			expectDependencyFailed(out, "dep")
			tol := s.f.Tolerances()
			Expect(out.Timeline.WithinBudget("failing dep after job's exit", fw.RuntimeEv(runtimev1.EventContainerExited, "job"), fw.RuntimeEv(runtimev1.EventDependencyFailed, "dep"), 0, tol.Reaction)).To(Succeed())
		})
		It("fails the dependents of a DependencyFailed container in turn", req(spec.DEP013), func() {
			expectDependencyFailed(get(), "dep2")
		})
		It("decides the pod by the first failing terminal exit", req(spec.EXIT015FirstFailure, spec.EXIT012NonZeroExitCode), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodFailed), "%s", st)
			Expect(st.DecidedBy).To(Equal("job"))
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(3)))
		})
	})

	// job fails once, is restarted (its own restartPolicy OnFailure) and then exits 0: only that
	// second exit is terminal (spec/terminology.md), and from it on job's condition Completed
	// holds, whatever its first exit was. A runtime that takes the first exit for the last one
	// never starts report.
	retry := &fw.Scenario{
		Short: "deps-retry",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever)).
			Main("job", fw.ExitAfter(0, ms(200)).Codes("1", "0"), fw.WithRestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Main("report", fw.ExitAfter(0, ms(100)), fw.DependsOn("job", v1alpha1.ConditionCompleted)),
		// The pod ends on its own once both have exited terminally, whether report ran or failed
		// with DependencyFailed. A runtime that leaves report waiting never ends it: stop the pod
		// after a bounded wait, so that the DEP-010 spec, not the scenario, reports that.
		Drive: endsOrIsStopped,
	}
	s.ordered("A Completed dependency that succeeds only after a restart", retry, func(get func() *fw.Outcome) {
		It("holds condition Completed once the dependency's restarted instance exited 0 terminally", req(spec.DEP010), func() {
			out := get()
			tl := out.Timeline
			// What job did, as its workload reports it: exit 1, then, restarted, exit 0.
			codes := workloadExitCodes(tl, "job")
			Expect(codes).To(Equal([]int{1, 0}), "job's workload must exit 1, then, restarted under OnFailure, 0\n%s", tl)
			t := out.Final.Terminated("job")
			Expect(t).NotTo(BeNil(), "job must be terminated\n%s", out.Final)
			Expect(t.ExitCode).To(HaveValue(BeEquivalentTo(0)))
			Expect(tl.Started("report")).To(BeTrue(), "job exited terminally with exit code 0 after a restart, so its condition Completed holds: report must start\n%s\n%s", out.Final, tl)
		})
		It("starts the dependent only after the dependency's terminal exit, not after its first", req(spec.HB004), func() {
			tl := get().Timeline
			if !tl.Started("report") {
				return // never started, so not too early: the DEP-010 spec reports that
			}
			Expect(tl.ExitsBeforeStart("job", "report")).To(Succeed())
		})
	})

	// job never passes its liveness probe: the runtime kills it with its stop signal (HOOK-010)
	// and, under Never, that kill ends it terminally. job exits 0 on SIGTERM, but an instance the
	// runtime killed after a failed probe is a failure (spec/terminology.md), so its condition
	// Completed never holds (DEP-010's exception): report must fail with DependencyFailed. A
	// runtime that decides Completed by the exit code alone starts report.
	killed := &fw.Scenario{
		Short: "deps-liveness",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("job", fw.Loop().On("SIGTERM", "exit:0s:0"),
				fw.Liveness(fw.CheckMarker("never-created"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1})).
			Main("report", fw.ExitAfter(0, ms(100)), fw.DependsOn("job", v1alpha1.ConditionCompleted)),
		// The pod ends on its own once job is killed and report has failed (or run). A runtime
		// that leaves report waiting never ends it: stop it after a bounded wait.
		Drive: endsOrIsStopped,
	}
	s.ordered("A Completed dependency killed after a failed liveness probe that exits 0", killed, func(get func() *fw.Outcome) {
		It("does not hold condition Completed for it, and fails the dependent with DependencyFailed", req(spec.DEP010), func() {
			out := get()
			tl := out.Timeline
			// What job did, as its workload reports it: SIGTERM (the liveness kill), then exit 0.
			Expect(tl.Before("job's SIGTERM before its exit", probeSignal("job", "SIGTERM"), fw.ProbeEvent("job", probe.TypeExit))).To(Succeed())
			codes := workloadExitCodes(tl, "job")
			Expect(codes).To(Equal([]int{0}), "job's workload must exit 0, once, on the SIGTERM of its liveness kill\n%s", tl)
			Expect(tl.Before("a failed liveness check of job before its SIGTERM", func(e fw.Entry) bool {
				return fw.ProbeEvent("job", probe.TypeCheck)(e) && e.Probe.Result == "failure"
			}, probeSignal("job", "SIGTERM"))).To(Succeed())
			Expect(tl.NeverStarted("report")).To(Succeed(), "job was killed after a failed liveness probe, a failure whatever its exit code: its condition Completed never holds\n%s\n%s", out.Final, tl)
			t := out.Final.Terminated("report")
			Expect(t).NotTo(BeNil(), "report must be terminated\n%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonDependencyFailed), "report's dependency job can no longer reach Completed\n%s", out.Final)
		})
	})
}

// workloadExitCodes is the exit codes the probe saw container name's workload exit with, in order.
func workloadExitCodes(tl *fw.Timeline, name string) []int {
	var codes []int
	for _, e := range tl.All(fw.ProbeEvent(name, probe.TypeExit)) {
		if e.Probe.ExitCode != nil {
			codes = append(codes, *e.Probe.ExitCode)
		}
	}
	return codes
}
