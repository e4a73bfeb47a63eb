// Package corpustest is test-only: it reads the valid podspec documents of the test corpus and
// the examples, and finds the corpus of real Kubernetes manifests, for the tests that hold
// every one of them to a property.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/manifest"
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
