package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEveryPatchAppliesBuildsAndVets applies every mutant's patch with no fuzz and runs go vet
// (which type-checks a package as the compiler does, then runs vet's analyzers) on each package
// the patch touches, with the patched files put in place by an overlay that also hides the
// packages' _test.go files (they are the normal build's, and vetting them would compile the
// mutant package for its external tests, several times slower): a change to the runtime that
// a patch no longer fits fails here, in a plain go test, not in a mutant run. With -short
// only the patches are applied.
func TestEveryPatchAppliesBuildsAndVets(t *testing.T) {
	reg, err := loadRegistry(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	t.Cleanup(func() {
		t.Logf("%d patches applied and vetted in %s", len(reg.Mutants), time.Since(start).Round(time.Second))
	})
	for _, m := range reg.Mutants {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			ov, pkgs, err := writeOverlay("../..", t.TempDir(), m.Name, true)
			if err != nil {
				t.Fatal(err)
			}
			if testing.Short() {
				return // -short: the patch applies; the vet (about 0.7 s of CPU a mutant) is skipped
			}
			cmd := exec.Command("go", append([]string{"vet", "-overlay", ov}, pkgs...)...)
			cmd.Dir = "../.."
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go vet -overlay %s: %v\n%s", strings.Join(pkgs, " "), err, out)
			}
		})
	}
}

// TestAPatchAppliesWithNoFuzz holds applyPatch to the exact context: a patch applies to the
// file it was made from, and not once a context line has changed or moved.
func TestAPatchAppliesWithNoFuzz(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig := "package x\n\nfunc f() int {\n\ta := 1\n\treturn a\n}\n"
	write("x/x.go", orig)
	write(patchDir+"/m.patch", `diff --git a/x/x.go b/x/x.go
--- a/x/x.go
+++ b/x/x.go
@@ -2,5 +2,5 @@
 
 func f() int {
-	a := 1
+	a := 2
 	return a
 }
`)
	got, err := applyPatch(root, "m")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(orig, "a := 1", "a := 2", 1); string(got["x/x.go"]) != want {
		t.Fatalf("patched file:\n%s\nwant:\n%s", got["x/x.go"], want)
	}
	for name, changed := range map[string]string{
		"a context line changed": strings.Replace(orig, "return a", "return a + 0", 1),
		"the hunk moved a line":  "// moved\n" + orig,
	} {
		write("x/x.go", changed)
		if _, err := applyPatch(root, "m"); err == nil {
			t.Errorf("%s: the patch applied", name)
		}
	}
}
