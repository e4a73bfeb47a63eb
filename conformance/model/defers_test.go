package model

import (
	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// afterStop is a pod whose a exits 0 at 1 s under exitPolicy Any and whose b is stopped by
// 1.1 s, with AfterStop defers names, changed by opts; grace 3 s, so the budget ends at 4.002 s.
// The defers' events are the case's.
func afterStop(opts []podOpt, names ...string) *hist {
	return twoMains(append([]podOpt{policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny), defers(v1alpha1.DeferAfterStop, names...)}, opts...)...).
		exit(1000, "a", 0, "Completed").fire(1001, "a").terminating(1002).
		signal(1003, "b", "SIGTERM").killed(1100, "b", "SIGTERM", "StoppedByPolicy")
}

// done finishes an afterStop pod as its result says (Succeeded, decided by a), with the condition
// DeferCompleted status and reason.
func (h *hist) done(ms int, status v1alpha1.ConditionStatus, reason string) *hist {
	h.finish(ms, v1alpha1.PodSucceeded, 0, "a", "Completed")
	h.final.Conditions = []v1alpha1.PodCondition{{Type: v1alpha1.PodDeferCompleted, Status: status, Reason: reason}}
	return h
}

func withD(name string, f func(*v1alpha1.DeferContainer)) podOpt {
	return func(p *v1alpha1.Pod) {
		for i := range p.Spec.DeferContainers {
			if p.Spec.DeferContainers[i].Name == name {
				f(&p.Spec.DeferContainers[i])
			}
		}
	}
}

func retried(d *v1alpha1.DeferContainer) { d.RestartPolicy = v1alpha1.RestartPolicyOnFailure }
func aborts(d *v1alpha1.DeferContainer)  { d.OnFailure = v1alpha1.DeferAbort }
func oneSecond(d *v1alpha1.DeferContainer) {
	one := int64(1)
	d.TimeoutSeconds = &one
}

func (h *hist) skip(ms int, c, reason string) *hist {
	return h.add(ms, runtimev1.EventContainerSkipped, c, func(e *runtimev1.Event) { e.Reason = reason })
}

// sawReason records a defer workload's report of its PODSPEC_TERMINATION_REASON.
func (h *hist) sawReason(ms int, c, reason string) *hist {
	return h.work(ms, c, probe.TypeReport, func(p *probe.Event) {
		p.Report = &probe.Report{Env: map[string]string{deferEnvReason: reason}}
	})
}

// budgetKill is an afterStop pod whose defer long ignores its end and is killed at the budget end
// (4.002 s), reason as given.
func budgetKill(reason string) *hist {
	return afterStop(nil, "long", "late").start(1110, "long").signal(4010, "long", "SIGKILL").
		killed(4020, "long", "SIGKILL", reason)
}

func deferCases() []modelCase {
	const failed, skipped = "DeferFailed", "DeferSkipped"
	yes, no := v1alpha1.ConditionTrue, v1alpha1.ConditionFalse
	return []modelCase{
		{"a defer that runs and succeeds after the main containers conforms", afterStop(nil, "d").
			start(1110, "d").sawReason(1120, "d", "Completed").exit(1200, "d", 0, "Completed").done(1300, yes, ""), nil},
		{"a defer neither started nor skipped breaks DEFER-002", afterStop(nil, "d").done(1300, no, skipped), []string{spec.DEFER002}},
		{"a defer skipped BudgetExhausted long before the budget end breaks DEFER-002", afterStop(nil, "d").
			skip(1110, "d", skipBudgetExhausted).done(1300, no, skipped), []string{spec.DEFER002}},
		{"a defer killed at the budget end, Timeout, and the next one skipped BudgetExhausted conform", budgetKill(v1alpha1.ReasonTimeout).
			skip(4021, "late", skipBudgetExhausted).done(4100, no, failed), nil},
		{"a defer seeing the termination reason in lower case breaks DEFER-003", afterStop(nil, "d").
			start(1110, "d").sawReason(1120, "d", "completed").exit(1200, "d", 0, "Completed").done(1300, yes, ""), []string{spec.DEFER003}},
		{"a defer retried after a failed attempt under OnFailure conforms", afterStop([]podOpt{withD("d", retried)}, "d").
			start(1110, "d").exit(1200, "d", 1, "Error").start(1500, "d").exit(1600, "d", 0, "Completed").done(1700, yes, ""), nil},
		{"a defer started again after its run succeeded breaks DEFER-004", afterStop([]podOpt{withD("d", retried)}, "d").
			start(1110, "d").exit(1200, "d", 0, "Completed").start(1500, "d").exit(1600, "d", 0, "Completed").done(1700, yes, ""), []string{spec.DEFER004}},
		{"a defer killed at its limit recorded Signaled breaks DEFER-005", budgetKill(v1alpha1.ReasonSignaled).
			skip(4021, "late", skipBudgetExhausted).done(4100, no, failed), []string{spec.DEFER005}},
		{"a defer running past its timeoutSeconds unkilled breaks DEFER-005", afterStop([]podOpt{withD("d", oneSecond)}, "d").
			start(1110, "d").exit(3500, "d", 0, "Completed").done(3600, yes, ""), []string{spec.DEFER005}},
		{"a defer started after the previous one was killed at the budget end breaks DEFER-006", budgetKill(v1alpha1.ReasonTimeout).
			start(4030, "late").signal(4031, "late", "SIGKILL").killed(4040, "late", "SIGKILL", v1alpha1.ReasonTimeout).done(4100, no, failed),
			[]string{spec.DEFER006}},
		{"a failed attempt not retried under OnFailure inside the limit breaks DEFER-008", afterStop([]podOpt{withD("d", retried)}, "d").
			start(1110, "d").exit(1200, "d", 1, "Error").done(1300, no, failed), []string{spec.DEFER008}},
		{"a retry whose back-off ends after the limit of the run breaks DEFER-017", afterStop([]podOpt{withD("d", retried), func(p *v1alpha1.Pod) {
			p.Spec.RestartBackoff.InitialSeconds, p.Spec.RestartBackoff.MaxSeconds = f64(5), f64(5)
		}}, "d").start(1110, "d").exit(1200, "d", 1, "Error").start(1500, "d").exit(1600, "d", 0, "Completed").done(1700, yes, ""),
			[]string{spec.DEFER017}},
		{"a failed run under onFailure: Abort skipping the later defer conforms", afterStop([]podOpt{withD("d", aborts)}, "d", "e").
			start(1110, "d").exit(1200, "d", 3, "Error").skip(1201, "e", skipAborted).done(1300, no, failed), nil},
		{"a failed run under onFailure: Abort followed by the next defer breaks DEFER-009", afterStop([]podOpt{withD("d", aborts)}, "d", "e").
			start(1110, "d").exit(1200, "d", 3, "Error").start(1210, "e").exit(1300, "e", 0, "Completed").done(1400, no, failed),
			[]string{spec.DEFER009}},
		{"a failed run under Continue, then one under Abort skipping the last defer, conforms", afterStop([]podOpt{withD("e", aborts)}, "d", "e", "f").
			start(1110, "d").exit(1200, "d", 3, "Error").start(1210, "e").exit(1300, "e", 3, "Error").skip(1301, "f", skipAborted).done(1400, no, failed), nil},
		{"a failed run under onFailure: Continue skipping the next defer breaks DEFER-010", afterStop(nil, "d", "e").
			start(1110, "d").exit(1200, "d", 3, "Error").skip(1201, "e", skipAborted).done(1300, no, failed), []string{spec.DEFER010}},
		{"a defer dying of a signal counted a success breaks DEFER-007", afterStop([]podOpt{withD("d", aborts)}, "d", "e").
			start(1110, "d").killed(1200, "d", "SIGSEGV", v1alpha1.ReasonSignaled).start(1210, "e").exit(1300, "e", 0, "Completed").done(1400, yes, ""),
			[]string{spec.DEFER007, spec.DEFER007}},
		{"DeferCompleted DeferSkipped after a failed run breaks DEFER-012", afterStop(nil, "d").
			start(1110, "d").exit(1200, "d", 3, "Error").done(1300, no, skipped), []string{spec.DEFER012}},
		{"a pod decided by its defer breaks DEFER-011", func() *hist {
			h := afterStop(nil, "d").start(1110, "d").exit(1200, "d", 3, "Error").done(1300, no, failed)
			h.ev[len(h.ev)-1].DecidedBy, h.final.DecidedBy = "d", "d"
			return h
		}(), []string{spec.DEFER011, spec.DEFER011, spec.EXIT016, spec.EXIT016}},
	}
}
