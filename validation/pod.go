package validation

import (
	"fmt"
	"math"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ValidatePod runs every semantic check on a defaulted pod and returns all findings, errors and
// warnings alike, in a deterministic order. A nil pod yields one MAN-003 error.
func ValidatePod(p *v1alpha1.Pod) field.ErrorList {
	if p == nil {
		return field.ErrorList{field.Required(spec.MAN003, nil, "no pod")}
	}
	var errs field.ErrorList
	errs = append(errs, validateObjectMeta(&p.Metadata, field.NewPath("metadata"))...)
	errs = append(errs, validatePodSpec(&p.Spec, field.NewPath("spec"))...)
	return errs
}

// validatePodSpec checks a pod's spec.
func validatePodSpec(s *v1alpha1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.ExitPolicy != "" {
		if e := enumProblem(p.Child("exitPolicy"), s.ExitPolicy,
			v1alpha1.ExitPolicyAll, v1alpha1.ExitPolicyAny, v1alpha1.ExitPolicyAnyFailure); e != nil {
			errs = append(errs, e)
		}
	}
	if s.RestartPolicy != "" {
		if e := enumProblem(p.Child("restartPolicy"), s.RestartPolicy,
			v1alpha1.RestartPolicyAlways, v1alpha1.RestartPolicyOnFailure, v1alpha1.RestartPolicyNever); e != nil {
			errs = append(errs, e)
		}
	}
	if g := s.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(spec.MAN002, p.Child("terminationGracePeriodSeconds"), *g, "must not be negative"))
	}
	if d := s.ActiveDeadlineSeconds; d != nil && *d < 1 {
		errs = append(errs, field.Invalid(spec.MAN002, p.Child("activeDeadlineSeconds"), *d, "must be at least 1"))
	}
	errs = append(errs, validateBackoff(s.RestartBackoff, p.Child("restartBackoff"))...)

	volErrs, volumes := validateVolumes(s.Volumes, p.Child("volumes"))
	errs = append(errs, volErrs...)
	errs = append(errs, validateContainerNames(s, p)...)
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(spec.MAIN001, p.Child("containers"), "a pod needs at least one main container"))
	}
	for i := range s.InitContainers {
		c := &s.InitContainers[i]
		errs = append(errs, validateContainer(s, c, initKind(c), volumes, p.Child("initContainers").Index(i))...)
	}
	for i := range s.Containers {
		errs = append(errs, validateContainer(s, &s.Containers[i], KindMain, volumes, p.Child("containers").Index(i))...)
	}
	for i := range s.DeferContainers {
		errs = append(errs, validateDeferContainer(&s.DeferContainers[i], volumes, p.Child("deferContainers").Index(i))...)
	}
	errs = append(errs, validateHostPorts(s, p)...)
	errs = append(errs, validateDependencies(s, p)...)
	if e := exitPolicyNeverFires(s, p); e != nil {
		errs = append(errs, e)
	}
	if e := deferBudget(s, p); e != nil {
		errs = append(errs, e)
	}
	return errs
}

// validateBackoff checks restartBackoff (RST-001).
func validateBackoff(b *v1alpha1.Backoff, p *field.Path) field.ErrorList {
	if b == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(name string, v *float64, ok func(float64) bool, detail string) {
		if v == nil {
			return
		}
		if math.IsInf(*v, 0) || math.IsNaN(*v) {
			errs = append(errs, field.Invalid(spec.RST001, p.Child(name), *v, "must be a finite number"))
		} else if !ok(*v) {
			errs = append(errs, field.Invalid(spec.RST001, p.Child(name), *v, detail))
		}
	}
	check("initialSeconds", b.InitialSeconds, func(v float64) bool { return v > 0 }, "must be greater than 0")
	check("factor", b.Factor, func(v float64) bool { return v >= 1 }, "must be at least 1 (the delay never shrinks)")
	if b.InitialSeconds != nil {
		initial := *b.InitialSeconds
		check("maxSeconds", b.MaxSeconds, func(v float64) bool { return v >= initial },
			fmt.Sprintf("must be at least initialSeconds (%g)", initial))
	}
	check("resetAfterSeconds", b.ResetAfterSeconds, func(v float64) bool { return v > 0 }, "must be greater than 0")
	return errs
}

// exitPolicyNeverFires warns when an explicitly chosen exit policy (Any or AnyFailure) can never
// fire because every main container's effective restart policy is Always, so no exit is ever
// terminal (EXIT-001). Under the default policy All this combination is an ordinary long-running
// service and is not warned about.
func exitPolicyNeverFires(s *v1alpha1.PodSpec, p *field.Path) *field.Error {
	if s.ExitPolicy != v1alpha1.ExitPolicyAny && s.ExitPolicy != v1alpha1.ExitPolicyAnyFailure {
		return nil
	}
	if len(s.Containers) == 0 {
		return nil
	}
	for i := range s.Containers {
		if s.EffectiveRestartPolicy(&s.Containers[i], false) != v1alpha1.RestartPolicyAlways {
			return nil
		}
	}
	return field.Invalid(spec.EXIT001, p.Child("exitPolicy"), string(s.ExitPolicy),
		"can never fire: every main container has restartPolicy Always, so no exit is terminal; set restartPolicy OnFailure or Never")
}

// deferBudget warns when the defers' timeouts plus the main containers' minimum stop window do
// not fit the grace period (STOP-002). The warning points at the timeoutSeconds of the first
// defer at which the running total exceeds the budget.
func deferBudget(s *v1alpha1.PodSpec, p *field.Path) *field.Error {
	grace := gracePeriod(s)
	if grace < 0 {
		return nil
	}
	total := v1alpha1.MinimumStopWindowSeconds
	at := -1
	for i := range s.DeferContainers {
		t := s.DeferContainers[i].TimeoutSeconds
		if t == nil || *t <= 0 {
			continue
		}
		total = saturatingAdd(total, *t)
		if at < 0 && total > grace {
			at = i
		}
	}
	if at < 0 {
		return nil
	}
	tp := p.Child("deferContainers").Index(at).Child("timeoutSeconds")
	return field.Invalid(spec.STOP002, tp, *s.DeferContainers[at].TimeoutSeconds,
		fmt.Sprintf("defer timeouts plus the %d s minimum stop window need %d s, more than terminationGracePeriodSeconds (%d s); defers from here on may be cut short or skipped",
			v1alpha1.MinimumStopWindowSeconds, total, grace))
}

// saturatingAdd adds two non-negative numbers without overflowing.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
