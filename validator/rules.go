package validator

import (
	"podspec.dev/podspec/docs"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/report"
)

// ruleTable lists every rule the validator reports, with its severity and a one-line summary.
// The normative text lives in docs/requirements.yaml.
func ruleTable() []report.Rule {
	e, w := finding.Error, finding.Warning
	return []report.Rule{
		{ID: "MAN-001", Severity: e, Text: "apiVersion/kind must be podspec.dev/v1alpha1 Pod or Notification"},
		{ID: "MAN-002", Severity: e, Text: "value must match the schema (type, enum, pattern, range, oneOf)"},
		{ID: "MAN-003", Severity: e, Text: "required field missing"},
		{ID: "MAN-004", Severity: e, Text: "unknown field"},
		{ID: "MAN-005", Severity: e, Text: "duplicate mapping key"},
		{ID: "MAN-006", Severity: e, Text: "document is not well-formed YAML/JSON"},
		{ID: "MAN-007", Severity: e, Text: "input exceeds a limit (size, nesting depth, alias expansion, document count)"},
		{ID: "MAN-008", Severity: w, Text: "YAML 1.1 ambiguous plain scalar (yes/no/on/off/y/n, leading-zero octal, sexagesimal): quote it"},
		{ID: "MAN-009", Severity: w, Text: "suppression annotation without a reason (podspec.dev/ignore needs podspec.dev/ignore-reason)"},
		{ID: "ID-001", Severity: e, Text: "metadata.name is a DNS-1123 label (at most 63 characters, [a-z0-9-], alphanumeric at both ends)"},
		{ID: "ID-002", Severity: e, Text: "container names are DNS labels, unique across initContainers, containers and deferContainers"},
		{ID: "ID-003", Severity: e, Text: "label keys and values and annotation keys are valid (Kubernetes syntax)"},
		{ID: "MAIN-001", Severity: e, Text: "at least one main container"},
		{ID: "DEP-001", Severity: e, Text: "dependsOn names an existing main container"},
		{ID: "DEP-002", Severity: e, Text: "dependsOn does not name the container itself"},
		{ID: "DEP-003", Severity: e, Text: "dependsOn graph has no cycle"},
		{ID: "DEP-004", Severity: e, Text: "condition Ready needs a readinessProbe on the dependency"},
		{ID: "DEP-005", Severity: e, Text: "condition Completed forbids effective restartPolicy Always on the dependency"},
		{ID: "DEP-006", Severity: e, Text: "dependsOn only on main containers, without duplicate entries"},
		{ID: "EXIT-001", Severity: w, Text: "exit policy can never fire: every main container restarts Always"},
		{ID: "RST-001", Severity: e, Text: "restartBackoff is sane: initialSeconds > 0, factor >= 1, maxSeconds >= initialSeconds, resetAfterSeconds > 0"},
		{ID: "STOP-001", Severity: e, Text: "stopSignal is a known signal name and not SIGKILL/SIGSTOP"},
		{ID: "STOP-002", Severity: w, Text: "defer budget cannot fit: defer timeouts + minimum stop window exceed terminationGracePeriodSeconds"},
		{ID: "HOOK-001", Severity: e, Text: "probes and lifecycle hooks only where they make sense"},
		{ID: "HOOK-002", Severity: e, Text: "exactly one handler per probe/hook; exec command non-empty; preStop sleep within the grace period"},
		{ID: "NTF-001", Severity: e, Text: "notifier names valid and unique per container"},
		{ID: "NTF-002", Severity: e, Text: "notifier action: exactly one of exec/signal; signal known, not SIGKILL/SIGSTOP"},
		{ID: "NTF-003", Severity: e, Text: "notifiers only on main and sidecar containers"},
		{ID: "NOTIF-001", Severity: e, Text: "Notification: exactly one of spec.pods/spec.selector; pod names DNS labels; parallelism >= 0; notifier name valid"},
		{ID: "VOL-001", Severity: e, Text: "volumeMount names a declared volume"},
		{ID: "VOL-002", Severity: e, Text: "volume names unique DNS labels; exactly one source; mountPath absolute and unique per container"},
		{ID: "VOL-003", Severity: e, Text: "hostPath.path absolute and clean; shared.name a DNS label"},
		{ID: "RES-001", Severity: e, Text: "resources: known names (cpu, memory, pids), parseable quantities, requests <= limits"},
		{ID: "DEFER-001", Severity: e, Text: "defer restartPolicy Never or OnFailure; timeoutSeconds >= 1"},
		{ID: "UPD-001", Severity: e, Text: "an update changes only mutable fields; the container set is immutable"},
		{ID: "UPD-002", Severity: e, Text: "activeDeadlineSeconds may only be set or decreased"},
		{ID: "IMG-001", Severity: e, Text: "image reference syntax oci:PATH[:TAG|@DIGEST]"},
	}
}

// Rules lists every rule ID the validator can report, with its severity and its text: the
// requirement's sentence from the registry (docs/requirements.yaml), or the summary above for
// an ID the registry does not have.
func Rules() []report.Rule {
	rules := ruleTable()
	for i, r := range rules {
		if req, ok := docs.Lookup(r.ID); ok && req.Text != "" {
			rules[i].Text = req.Text
		}
	}
	return rules
}
