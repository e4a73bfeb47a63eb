package validator

import (
	"strconv"
	"strings"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
)

// MAN-008 in a Kubernetes object gives advice that keeps the manifest valid: a file mode written
// in octal, which Kubernetes reads as intended, is a note saying to write it in decimal; another
// leading-zero number stays a warning with the same advice; a yes in a boolean field says to
// write true, while one in a string field (KUBE-003 there) keeps "quote it". Every finding,
// the decoder's included (MAN-005, MAN-008), has its field path.
func TestMAN008InAKubernetesObjectAdvisesDecimalAndNotesFileModes(t *testing.T) {
	v, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {a: x, a: yes}
spec:
  volumes:
    - {name: s, secret: {secretName: s, defaultMode: 0400}}
  containers:
    - name: a
      image: b
      tty: on
      ports: [{containerPort: 0100}]
`
	type want struct {
		sev      finding.Severity
		path, in string
	}
	wants := map[string]want{
		"5:23":  {finding.Error, "metadata.annotations.a", "already defined"},
		"5:26":  {finding.Warning, "metadata.annotations.a", "quote it"},
		"8:54":  {finding.Note, "spec.volumes[0].secret.defaultMode", "0400 is octal to Kubernetes (YAML 1.1), the file mode 256, as intended; write it in decimal, 256"},
		"12:12": {finding.Warning, "spec.containers[0].tty", "reads on as the boolean true, YAML 1.2 tools as a string; write true"},
		"13:31": {finding.Warning, "spec.containers[0].ports[0].containerPort", "reads 0100 as octal, 64, YAML 1.2 tools as decimal; write it in decimal, 64"},
	}
	rs := v.Bytes("pod.yaml", []byte(doc))
	seen := 0
	for _, f := range rs[0].Findings {
		if f.Path == "" {
			t.Errorf("%s at %d:%d has no path", f.Rule, f.Pos.Line, f.Pos.Column)
		}
		if f.Rule != spec.MAN008 && f.Rule != spec.MAN005 {
			continue
		}
		at := strings.Join([]string{itoa(f.Pos.Line), itoa(f.Pos.Column)}, ":")
		w, ok := wants[at]
		if !ok {
			t.Errorf("unexpected %s %s at %s: %s", f.Severity, f.Rule, at, f.Message)
			continue
		}
		seen++
		if f.Severity != w.sev || f.Path != w.path || !strings.Contains(f.Message, w.in) {
			t.Errorf("at %s: %s %s %q: %s, want %s %s containing %q", at, f.Severity, f.Rule, f.Path, f.Message, w.sev, w.path, w.in)
		}
	}
	if seen != len(wants) {
		t.Errorf("saw %d of the %d expected findings: %+v", seen, len(wants), rs[0].Findings)
	}
	var sum Summary
	sum.Add(rs[0])
	if sum.Notes != 1 {
		t.Errorf("summary counts %d notes, want 1 (notes are neither errors nor warnings): %+v", sum.Notes, sum)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
