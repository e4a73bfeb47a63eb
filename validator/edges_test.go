package validator

import (
	"fmt"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/manifest"
)

// durationFields are the YAML paths of every duration field of a Pod (MAN-012), as
// numericEdgeSeeds writes them into a pod.
var durationFields = []string{
	"terminationGracePeriodSeconds", "activeDeadlineSeconds",
	"restartBackoff.initialSeconds", "restartBackoff.maxSeconds", "restartBackoff.resetAfterSeconds",
	"probe.initialDelaySeconds", "probe.periodSeconds", "probe.timeoutSeconds",
	"sleep.seconds", "notifier.timeoutSeconds", "defer.timeoutSeconds",
}

// numericEdges are numbers at the edges of the types a manifest's numbers decode to.
var numericEdges = []string{
	"0", "-0", "-0.0", "2147483647", "2147483648", "4294967296", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"99999999999999999999999999999999999", "1e308", "1.7976931348623157e308", "1e400", "-1e400",
	"1e-400", "0x7fffffffffffffff", "0x8000000000000000", "1_000_000_000_000", ".inf", "1.5",
}

// numericEdgeSeeds are pods with one numeric edge in one duration field each.
func numericEdgeSeeds() [][]byte {
	var out [][]byte
	for _, field := range durationFields {
		for _, n := range numericEdges {
			out = append(out, []byte(edgePod(field, n)))
		}
	}
	return out
}

// edgePod is a pod with every duration field set, field to value n.
func edgePod(field, n string) string {
	v := map[string]string{}
	for _, f := range durationFields {
		v[f] = "5"
	}
	v[field] = n
	return fmt.Sprintf(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: edge}
spec:
  terminationGracePeriodSeconds: %s
  activeDeadlineSeconds: %s
  restartBackoff: {initialSeconds: %s, maxSeconds: %s, resetAfterSeconds: %s}
  containers:
    - name: app
      image: oci:images/busybox:latest
      readinessProbe: {exec: {command: [ready]}, initialDelaySeconds: %s, periodSeconds: %s, timeoutSeconds: %s}
      lifecycle: {preStop: {sleep: {seconds: %s}}}
      notifiers: [{name: reload, timeoutSeconds: %s, action: {signal: SIGHUP}}]
      dependsOn: [{name: nope}]
  deferContainers: [{name: report, image: "oci:images/busybox:latest", timeoutSeconds: %s}]
`, v["terminationGracePeriodSeconds"], v["activeDeadlineSeconds"], v["restartBackoff.initialSeconds"],
		v["restartBackoff.maxSeconds"], v["restartBackoff.resetAfterSeconds"], v["probe.initialDelaySeconds"],
		v["probe.periodSeconds"], v["probe.timeoutSeconds"], v["sleep.seconds"], v["notifier.timeoutSeconds"],
		v["defer.timeoutSeconds"])
}

// checkRunAgrees holds the validator to the decoder `podspec run` uses (manifest.Decode, then
// Document.Pod or Document.Notification): every value that decoder cannot put in its typed
// field must be an error finding of the validator at that value's position, so that a
// document the validator passes is one `run` can decode.
func checkRunAgrees(t *testing.T, data []byte, results []*Result) {
	t.Helper()
	docs, _ := manifest.Decode("fuzz.yaml", data, manifest.DefaultLimits())
	for _, d := range docs {
		if d.APIVersion != v1alpha1.APIVersion {
			continue
		}
		var strict error
		var bad []manifest.DecodeError
		switch d.Kind {
		case v1alpha1.KindPod:
			_, strict = d.Pod()
			_, bad = d.PartialPod()
		case v1alpha1.KindNotification:
			_, strict = d.Notification()
			_, bad = d.PartialNotification()
		default:
			continue
		}
		if (strict == nil) != (len(bad) == 0) {
			t.Errorf("document %d: the strict decode says %v, the partial one %v", d.Index, strict, bad)
		}
		for _, b := range bad {
			line, col := d.Position(b.Tokens, false)
			if !hasErrorAt(results, d.Index, line, col) {
				t.Errorf("document %d: run cannot decode %v (%v) at %d:%d, and the validator reports no error there", d.Index, b.Value, b.Err, line, col)
			}
		}
	}
}

func hasErrorAt(results []*Result, doc, line, col int) bool {
	for _, r := range results {
		for _, f := range r.Findings {
			if f.Document == doc && f.Severity == finding.Error && f.Pos.Line == line && f.Pos.Column == col {
				return true
			}
		}
	}
	return false
}
