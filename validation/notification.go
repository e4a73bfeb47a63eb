package validation

import (
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ValidateNotification runs every semantic check on a defaulted Notification (NOTIF-001, plus
// ID-001 and ID-003 on its metadata). A nil notification yields one MAN-003 error.
func ValidateNotification(n *v1alpha1.Notification) field.ErrorList {
	if n == nil {
		return field.ErrorList{field.Required(spec.MAN003, nil, "no notification")}
	}
	var errs field.ErrorList
	errs = append(errs, validateObjectMeta(&n.Metadata, field.NewPath("metadata"))...)
	errs = append(errs, validateNotificationSpec(&n.Spec, field.NewPath("spec"))...)
	return errs
}

func validateNotificationSpec(s *v1alpha1.NotificationSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("notifier")
	if s.Notifier == "" {
		errs = append(errs, field.Required(spec.MAN003, np, "a notification names the notifier to trigger"))
	} else if d := qualifiedNameProblem(s.Notifier); d != "" {
		errs = append(errs, field.Invalid(spec.NOTIF001, np, s.Notifier, "notifier name "+d))
	}
	switch {
	case s.Pods == nil && s.Selector == nil:
		errs = append(errs, field.Required(spec.NOTIF001, p, "exactly one of pods or selector is required"))
	case s.Pods != nil && s.Selector != nil:
		errs = append(errs, field.Forbidden(spec.NOTIF001, p.Child("selector"), "exactly one of pods or selector may be set, not both").AtKey())
	case s.Pods != nil:
		errs = append(errs, validatePodNames(s.Pods, p.Child("pods"))...)
	default:
		errs = append(errs, validateSelector(s.Selector, p.Child("selector"))...)
	}
	if s.TargetPolicy != "" {
		if e := enumProblem(p.Child("targetPolicy"), s.TargetPolicy, v1alpha1.PreExistingPods, v1alpha1.AllPods); e != nil {
			errs = append(errs, e)
		}
	}
	if s.Parallelism != nil && *s.Parallelism < 0 {
		errs = append(errs, field.Invalid(spec.NOTIF001, p.Child("parallelism"), *s.Parallelism, "must not be negative (0 means all targets at once)"))
	}
	return errs
}

func validatePodNames(pods []string, p *field.Path) field.ErrorList {
	if len(pods) == 0 {
		return field.ErrorList{field.Required(spec.NOTIF001, p, "name at least one pod, or use a selector")}
	}
	var errs field.ErrorList
	seen := make(map[string]bool, len(pods))
	for i, name := range pods {
		ip := p.Index(i)
		switch {
		case name == "":
			errs = append(errs, field.Invalid(spec.NOTIF001, ip, name, "a pod name must not be empty"))
		case dnsLabelProblem(name) != "":
			errs = append(errs, field.Invalid(spec.NOTIF001, ip, name, dnsLabelProblem(name)))
		case seen[name]:
			errs = append(errs, field.Duplicate(spec.NOTIF001, ip, name, "each pod may be named once"))
		}
		seen[name] = true
	}
	return errs
}

func validateSelector(sel *v1alpha1.LabelSelector, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateLabels(spec.ID003, sel.MatchLabels, p.Child("matchLabels"))...)
	for i := range sel.MatchExpressions {
		r := &sel.MatchExpressions[i]
		rp := p.Child("matchExpressions").Index(i)
		if r.Key == "" {
			errs = append(errs, field.Required(spec.MAN003, rp.Child("key"), "a selector expression needs a key"))
		} else if d := qualifiedNameProblem(r.Key); d != "" {
			errs = append(errs, field.Invalid(spec.ID003, rp.Child("key"), r.Key, "label key "+d))
		}
		switch r.Operator {
		case v1alpha1.SelectorIn, v1alpha1.SelectorNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, field.Required(spec.NOTIF001, rp.Child("values"), "operators In and NotIn need at least one value"))
			}
		case v1alpha1.SelectorExists, v1alpha1.SelectorDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, field.Forbidden(spec.NOTIF001, rp.Child("values"), "operators Exists and DoesNotExist take no values").AtKey())
			}
		default:
			errs = append(errs, enumProblem(rp.Child("operator"), r.Operator,
				v1alpha1.SelectorIn, v1alpha1.SelectorNotIn, v1alpha1.SelectorExists, v1alpha1.SelectorDoesNotExist))
		}
		for j, v := range r.Values {
			if d := labelValueProblem(v); d != "" {
				errs = append(errs, field.Invalid(spec.ID003, rp.Child("values").Index(j), v, "label value "+d))
			}
		}
	}
	return errs
}
