package validator

import (
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/report"
	"podspec.dev/podspec/spec"
)

// Rules lists every rule ID the validator can report, in the order of the spec, with its
// severity and its sentence, from the rule catalog (package spec).
func Rules() []report.Rule {
	var out []report.Rule
	for _, r := range spec.Rules() {
		out = append(out, report.Rule{ID: r.ID, Severity: finding.Severity(r.Severity), Text: r.Text})
	}
	return out
}
