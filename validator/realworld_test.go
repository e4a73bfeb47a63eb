package validator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/internal/corpustest"
	"podspec.dev/podspec/spec"
)

// realworldJudgements are where podspec reports other errors than expected-errors.txt lists, each
// judged better, with the reason: "-" an expected error no longer reported, "+" a new one.
var realworldJudgements = map[string]string{
	// The ReplicationController was passed over unchecked when the list was made. Its template
	// has no labels and it gives no selector: the API server defaults the selector to the
	// template's labels, finds it empty and rejects the object.
	"+ KUBE-012 kubernetes+examples/_archived/sysdig-cloud/sysdig-rc.yaml:11:3": "an RC whose selector defaults to no labels is rejected",
	// A request of 64Mi (67,108,864 bytes) above a limit of 64M (64,000,000 bytes): the API
	// server rejects it ("must be less than or equal to memory limit"); the document also has
	// the removed apps/v1beta1 (group A).
	"+ KUBE-020 GoogleCloudPlatform+kubernetes-engine-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-local/app-v1/deployment.yaml:33:21": "request 64Mi above limit 64M",
	// A document without an apiVersion (a placeholder left out) was MAN-003 and MAN-001 ("kind
	// must be Pod or Notification"); the kind is not what is wrong, so MAN-003 alone now says so,
	// naming the API version to write.
	"- MAN-001 GoogleCloudPlatform+kubernetes-engine-samples/ai-ml/infw-gw/examples/getting-started/inference-pool-variables.yaml:16:7": "the missing apiVersion is the one error",
}

// realworldWarnings are the warnings and notes the corpus gets, by severity and rule, each one a
// person would act on: the file modes in octal are notes (Kubernetes reads them as intended;
// writing them in decimal reads the same everywhere), a port declared twice (ingress-nginx's
// http and https both on containerPort 80) the API server warns about too, and a sidecar
// without a startupProbe that a later init container depends on.
var realworldWarnings = map[string]int{"note MAN-008": 35, "warning KUBE-024": 1, "warning KUBE-015": 1}

// TestRealWorldCorpusHasNoFalsePositive validates the corpus of real manifests: the errors are
// exactly those of its expected-errors.txt (all true positives: the API server rejects each),
// corrected by realworldJudgements, and the warnings are the ones listed above.
func TestRealWorldCorpusHasNoFalsePositive(t *testing.T) {
	dir := corpustest.RealWorldDir("..")
	if dir == "" {
		t.Skip("the real-world corpus (../shared/realworld/ beside the repository, or $PODSPEC_REALWORLD) is not on this machine")
	}
	want := map[string]bool{}
	f, err := os.Open(filepath.Join(dir, "expected-errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || len(fields[0]) != 1 || !strings.Contains(fields[1], "-") || !strings.Contains(fields[2], ":") {
			continue // the header and the group summaries
		}
		want[fields[1]+" "+fields[2]] = true
	}
	if len(want) == 0 {
		t.Fatal("expected-errors.txt lists no error")
	}
	for j := range realworldJudgements {
		op, key, _ := strings.Cut(j, " ")
		switch op {
		case "+":
			want[key] = true
		case "-":
			if !want[key] {
				t.Errorf("judgement %q: expected-errors.txt does not list it", j)
			}
			delete(want, key)
		}
	}

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
