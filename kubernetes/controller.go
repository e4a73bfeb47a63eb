package kubernetes

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/validation/field"
)

// validateController checks what the API server checks of a workload beyond its pod template
// (KUBE-012): a selector that is well-formed, not empty, and matches the template's labels; a
// Job whose selector is generated; a CronJob's schedule; counts that are not negative.
func validateController(o *Object, t *Template) field.ErrorList {
	var errs field.ErrorList
	sp := o.Path.Child("spec")
	labels := t.Meta.Labels
	checkSelector := func(sel *LabelSelector, p *field.Path) {
		if sel == nil {
			return // a missing selector is KUBE-005
		}
		errs = append(errs, validateSelector(sel, labels, p, t.MetaPath.Child("labels"))...)
	}
	nonNegative := func(name string, v *int32) {
		if v != nil && *v < 0 {
			errs = append(errs, field.Invalid(ruleController, sp.Child(name), *v, "must not be negative"))
		}
	}
	switch v := o.Value.(type) {
	case *Deployment:
		checkSelector(v.Spec.Selector, sp.Child("selector"))
		nonNegative("replicas", v.Spec.Replicas)
		if v.Spec.Strategy.Type == "Recreate" && v.Spec.Strategy.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(ruleController, sp.Child("strategy", "rollingUpdate"), "may not be set when strategy type is Recreate").AtKey())
		}
	case *StatefulSet:
		checkSelector(v.Spec.Selector, sp.Child("selector"))
		nonNegative("replicas", v.Spec.Replicas)
	case *DaemonSet:
		checkSelector(v.Spec.Selector, sp.Child("selector"))
	case *ReplicaSet:
		checkSelector(v.Spec.Selector, sp.Child("selector"))
		nonNegative("replicas", v.Spec.Replicas)
	case *ReplicationController:
		// An empty selector is defaulted to the template's labels; a given one must select them.
		if len(v.Spec.Selector) > 0 {
			errs = append(errs, validateSelector(&LabelSelector{MatchLabels: v.Spec.Selector}, labels, sp.Child("selector"), t.MetaPath.Child("labels"))...)
		}
		if len(labels) == 0 {
			errs = append(errs, field.Required(ruleController, t.MetaPath.Child("labels"), "a ReplicationController's pod template needs labels, which its selector selects"))
		}
		nonNegative("replicas", v.Spec.Replicas)
		if m := v.Spec.MinReadySeconds; m < 0 {
			errs = append(errs, field.Invalid(ruleController, sp.Child("minReadySeconds"), m, "must not be negative"))
		}
	case *Job:
		errs = append(errs, validateJobSpec(&v.Spec, sp, labels, t.MetaPath.Child("labels"))...)
	case *CronJob:
		if strings.TrimSpace(v.Spec.Schedule) == "" {
			errs = append(errs, field.Required(ruleController, sp.Child("schedule"), "a CronJob needs a schedule"))
		} else if d := scheduleProblem(v.Spec.Schedule); d != "" {
			errs = append(errs, field.Invalid(ruleController, sp.Child("schedule"), v.Spec.Schedule, d))
		}
		jp := sp.Child("jobTemplate", "spec")
		errs = append(errs, validateJobSpec(&v.Spec.JobTemplate.Spec, jp, labels, t.MetaPath.Child("labels"))...)
	}
	return errs
}

func validateJobSpec(s *JobSpec, p *field.Path, labels map[string]string, labelsPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	manual := s.ManualSelector != nil && *s.ManualSelector
	if s.Selector != nil && !manual {
		errs = append(errs, field.Forbidden(ruleController, p.Child("selector"),
			"the selector of a Job is generated; set manualSelector: true to give one").AtKey())
	} else if s.Selector != nil {
		errs = append(errs, validateSelector(s.Selector, labels, p.Child("selector"), labelsPath)...)
	}
	for _, n := range []struct {
		name string
		v    *int32
	}{{"parallelism", s.Parallelism}, {"completions", s.Completions}, {"backoffLimit", s.BackoffLimit}} {
		if n.v != nil && *n.v < 0 {
			errs = append(errs, field.Invalid(ruleController, p.Child(n.name), *n.v, "must not be negative"))
		}
	}
	if d := s.ActiveDeadlineSeconds; d != nil && *d < 1 {
		errs = append(errs, field.Invalid(ruleController, p.Child("activeDeadlineSeconds"), *d, "must be at least 1"))
	}
	return errs
}

// validateSelector checks a label selector and that it selects the pods of the template.
func validateSelector(sel *LabelSelector, labels map[string]string, p, labelsPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return field.ErrorList{field.Invalid(ruleController, p, nil, "an empty selector selects every pod; it is invalid for a workload")}
	}
	for i, e := range sel.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		switch e.Operator {
		case "In", "NotIn":
			if len(e.Values) == 0 {
				errs = append(errs, field.Required(ruleController, ep.Child("values"), "operator "+e.Operator+" needs values"))
			}
		case "Exists", "DoesNotExist":
			if len(e.Values) > 0 {
				errs = append(errs, field.Forbidden(ruleController, ep.Child("values"), "operator "+e.Operator+" takes no values").AtKey())
			}
		default:
			errs = append(errs, field.NotSupported(ruleController, ep.Child("operator"), e.Operator, []string{"In", "NotIn", "Exists", "DoesNotExist"}))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if !selects(sel, labels) {
		errs = append(errs, field.Invalid(ruleController, p, nil,
			fmt.Sprintf("does not select the pod template's labels (%s): the workload would never own its pods", describeLabels(labels))))
	}
	return errs
}

// selects reports whether a valid selector matches a label set.
func selects(sel *LabelSelector, labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range sel.MatchExpressions {
		v, ok := labels[e.Key]
		in := false
		for _, x := range e.Values {
			in = in || x == v
		}
		switch e.Operator {
		case "In":
			if !ok || !in {
				return false
			}
		case "NotIn":
			if ok && in {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		case "DoesNotExist":
			if ok {
				return false
			}
		}
	}
	return true
}

func describeLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(labels) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ", ")
}

// scheduleProblem says why s is not a cron schedule the CronJob controller reads: five fields
// (minute, hour, day of month, month, day of week), optionally after CRON_TZ=/TZ=, or one of
// the @ descriptors.
func scheduleProblem(s string) string {
	fields := strings.Fields(s)
	if len(fields) > 0 && (strings.HasPrefix(fields[0], "TZ=") || strings.HasPrefix(fields[0], "CRON_TZ=")) {
		return "may not name a time zone (TZ= or CRON_TZ=); use spec.timeZone"
	}
	if len(fields) == 1 && strings.HasPrefix(fields[0], "@") {
		switch fields[0] {
		case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
			return ""
		}
		if strings.HasPrefix(fields[0], "@every") {
			return ""
		}
		return "unknown descriptor " + fields[0]
	}
	if len(fields) == 2 && fields[0] == "@every" {
		return ""
	}
	if len(fields) != 5 {
		return fmt.Sprintf("must have 5 fields (minute hour day-of-month month day-of-week), has %d", len(fields))
	}
	for i, f := range fields {
		for _, c := range f {
			if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || strings.ContainsRune("*/,-?", c)) {
				return fmt.Sprintf("field %q holds %q, which no cron field may", f, c)
			}
		}
		if d := cronFields[i].problem(f); d != "" {
			return fmt.Sprintf("%s field %q: %s", cronFields[i].name, f, d)
		}
	}
	return ""
}

// cronField is one field of a five-field cron schedule, as the CronJob controller's parser
// reads it: its range and, for month and day of week, the names it takes.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] is min+i
}

var cronFields = [5]cronField{
	{name: "minute", min: 0, max: 59},
	{name: "hour", min: 0, max: 23},
	{name: "day-of-month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{name: "day-of-week", min: 0, max: 6, names: []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

// problem says why f is not a value of the field: a comma-separated list of *, ?, a value or a
// range a-b, each with an optional /step; "" when it is one.
func (c cronField) problem(f string) string {
	for _, part := range strings.Split(f, ",") {
		rng, step, hasStep := strings.Cut(part, "/")
		if hasStep {
			if n, ok := atoi(step); !ok || n < 1 {
				return fmt.Sprintf("step %q must be a positive number", step)
			}
		}
		if rng == "*" || rng == "?" {
			continue
		}
		lo, hi, isRange := strings.Cut(rng, "-")
		a, d := c.value(lo)
		if d != "" {
			return d
		}
		if !isRange {
			continue
		}
		b, d := c.value(hi)
		if d != "" {
			return d
		}
		if a > b {
			return fmt.Sprintf("range %s has its start after its end", rng)
		}
	}
	return ""
}

// value reads one value of the field, a number or a name.
func (c cronField) value(s string) (int, string) {
	for i, n := range c.names {
		if strings.EqualFold(s, n) {
			return c.min + i, ""
		}
	}
	n, ok := atoi(s)
	if !ok {
		return 0, fmt.Sprintf("%q is not a number", s)
	}
	if n < c.min || n > c.max {
		return 0, fmt.Sprintf("%d is out of range (%d-%d)", n, c.min, c.max)
	}
	return n, ""
}

// atoi reads a non-negative decimal number of at most 9 digits.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
