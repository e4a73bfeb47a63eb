// Package corpustest is test-only: it reads the valid podspec documents of the test corpus and
// the examples, and finds the corpus of real Kubernetes manifests, for the tests that hold
// every one of them to a property.
package corpustest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
)

// ValidDocuments decodes testdata/valid (and its subdirectories) and examples under root, the
// repository's root as a path from the test's package ("../.." from api/v1alpha1), and returns
// their podspec.dev/v1alpha1 documents in file order. Document.File is the file as found
// (root joined with its path in the repository).
func ValidDocuments(t testing.TB, root string) []*manifest.Document {
	t.Helper()
	var files []string
	for _, pattern := range []string{"testdata/valid/*.yaml", "testdata/valid/*/*.yaml", "examples/*.yaml"} {
		m, _ := filepath.Glob(filepath.Join(root, pattern))
		files = append(files, m...)
	}
	var out []*manifest.Document
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, _ := manifest.Decode(f, data, manifest.DefaultLimits())
		for _, d := range docs {
			if d.APIVersion == v1alpha1.APIVersion {
				out = append(out, d)
			}
		}
	}
	return out
}

// RealWorldDir finds the corpus of real Kubernetes manifests (../shared/realworld/ beside the
// repository, read in place and never copied into it): $PODSPEC_REALWORLD, then the directory
// beside the repository (root is the repository's root as a path from the test's package),
// then /work/shared/realworld; "" when none holds its expected-errors.txt.
func RealWorldDir(root string) string {
	candidates := []string{os.Getenv("PODSPEC_REALWORLD"), filepath.Join(root, "..", "shared", "realworld"), "/work/shared/realworld"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "expected-errors.txt")); err == nil {
			return c
		}
	}
	return ""
}

// RealWorldJudgements are where podspec reports other errors than the real-world corpus's
// expected-errors.txt lists, each judged better, with the reason: "-" an expected error no longer
// reported, "+" a new one; keys are "OP RULE FILE:LINE:COL".
var RealWorldJudgements = map[string]string{
	// The ReplicationController was passed over unchecked when the list was made. Its template
	// has no labels and it gives no selector: the API server defaults the selector to the
	// template's labels, finds it empty and rejects the object.
	"+ " + spec.KUBE012 + " kubernetes+examples/_archived/sysdig-cloud/sysdig-rc.yaml:11:3": "an RC whose selector defaults to no labels is rejected",
	// A request of 64Mi (67,108,864 bytes) above a limit of 64M (64,000,000 bytes): the API
	// server rejects it ("must be less than or equal to memory limit"); the document also has
	// the removed apps/v1beta1 (group A).
	"+ " + spec.KUBE020 + " GoogleCloudPlatform+kubernetes-engine-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-local/app-v1/deployment.yaml:33:21": "request 64Mi above limit 64M",
	// A document without an apiVersion (a placeholder left out) was MAN-003 and MAN-001 ("kind
	// must be Pod or Notification"); the kind is not what is wrong, so MAN-003 alone now says so,
	// naming the API version to write.
	"- " + spec.MAN001 + " GoogleCloudPlatform+kubernetes-engine-samples/ai-ml/infw-gw/examples/getting-started/inference-pool-variables.yaml:16:7": "the missing apiVersion is the one error",
}

// RealWorldErrors reads the expected-errors.txt of the real-world corpus in dir and applies
// RealWorldJudgements: the errors podspec must report on the corpus, as "RULE FILE:LINE:COL"
// with FILE relative to dir/corpus.
func RealWorldErrors(t testing.TB, dir string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "expected-errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		fields := strings.Fields(l)
		if len(fields) < 3 || len(fields[0]) != 1 || !strings.Contains(fields[1], "-") || !strings.Contains(fields[2], ":") {
			continue // the header and the group summaries
		}
		want[fields[1]+" "+fields[2]] = true
	}
	if len(want) == 0 {
		t.Fatal("expected-errors.txt lists no error")
	}
	for j := range RealWorldJudgements {
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
	return want
}
