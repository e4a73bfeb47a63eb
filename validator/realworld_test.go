package validator

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/internal/corpustest"
	"podspec.dev/podspec/spec"
)

// realworldWarnings are the warnings and notes the corpus gets, by severity and rule, each one a
// person would act on: the file modes in octal are notes (Kubernetes reads them as intended;
// writing them in decimal reads the same everywhere), a port declared twice (ingress-nginx's
// http and https both on containerPort 80) the API server warns about too, and a sidecar
// without a startupProbe that a later init container depends on.
var realworldWarnings = map[string]int{"note MAN-008": 35, "warning KUBE-024": 1, "warning KUBE-015": 1}

// TestRealWorldCorpusHasNoFalsePositive validates the corpus of real manifests: the errors are
// exactly those of its expected-errors.txt (all true positives: the API server rejects each),
// corrected by corpustest.RealWorldJudgements, and the warnings are the ones listed above.
func TestRealWorldCorpusHasNoFalsePositive(t *testing.T) {
	dir := corpustest.RealWorldDir("..")
	if dir == "" {
		t.Skip("the real-world corpus (../shared/realworld/ beside the repository, or $PODSPEC_REALWORLD) is not on this machine")
	}
	want := corpustest.RealWorldErrors(t, dir)

	corpus := filepath.Join(dir, "corpus")
	v, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]finding.Finding{}
	warnings := map[string]int{}
	sum, err := v.Run(context.Background(), []string{corpus}, nil, func(r *Result) error {
		for _, fd := range r.Findings {
			if fd.Suppressed {
				continue
			}
			if fd.Severity != spec.Error {
				warnings[string(fd.Severity)+" "+fd.Rule]++
				continue
			}
			rel, _ := filepath.Rel(corpus, fd.Pos.File)
			got[fmt.Sprintf("%s %s:%d:%d", fd.Rule, filepath.ToSlash(rel), fd.Pos.Line, fd.Pos.Column)] = fd
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, e := range got {
		if !want[k] {
			t.Errorf("false positive (or a judgement to add): %s: %s: %s", k, e.Path, e.Message)
		}
	}
	var missing []string
	for k := range want {
		if _, ok := got[k]; !ok {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	for _, k := range missing {
		t.Errorf("expected error not reported: %s", k)
	}
	for k, n := range warnings {
		if realworldWarnings[k] != n {
			t.Errorf("%d × %s on the corpus, want %d", n, k, realworldWarnings[k])
		}
	}
	for k, n := range realworldWarnings {
		if _, ok := warnings[k]; !ok && n > 0 {
			t.Errorf("no %s on the corpus, want %d", k, n)
		}
	}
	if sum.Documents != 3601 || sum.Files != 847 {
		t.Errorf("read %d files, %d documents; the corpus has 847 files, 3601 documents", sum.Files, sum.Documents)
	}
}
