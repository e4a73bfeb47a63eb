package main

import (
	"errors"
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
				t.Fatalf("%v\n(a patch whose code only moved: go run ./scripts/mutantcheck refit %s; docs/mutants.md)", err, m.Name)
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
	write := func(rel, s string) { writeFile(t, root, rel, s) }
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

// TestRefitFollowsMovedLinesOnly: refit moves a patch's hunks to where their lines went, so the
// patch applies strictly again, and refuses a patch whose lines changed.
func TestRefitFollowsMovedLinesOnly(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) { writeFile(t, root, rel, s) }
	patch := `diff --git a/x/x.go b/x/x.go
--- a/x/x.go
+++ b/x/x.go
@@ -3,4 +3,5 @@ package x
 func f() int {
 	a := 1
+	a++
 	return a
 }
@@ -8,4 +9,4 @@ func f() int {
 func g() int {
-	b := 1
+	b := 2
 	return b
 }
`
	write(patchDir+"/m.patch", patch)
	moved := "package x\n\n// f and g moved down by three lines.\n//\n//\nfunc f() int {\n\ta := 1\n\treturn a\n}\n\n// g too, by one more.\nfunc g() int {\n\tb := 1\n\treturn b\n}\n"
	write("x/x.go", moved)
	if _, err := applyPatch(root, "m"); err == nil {
		t.Fatal("the patch applied to moved lines before refit")
	}
	out, changed, err := refitPatch(root, "m")
	if err != nil || !changed {
		t.Fatalf("refit: changed %v, %v", changed, err)
	}
	for _, h := range []string{"@@ -6,4 +6,5 @@ package x\n", "@@ -12,4 +13,4 @@ func f() int {\n"} {
		if !strings.Contains(string(out), h) {
			t.Errorf("refitted patch has no %q:\n%s", h, out)
		}
	}
	write(patchDir+"/m.patch", string(out))
	got, err := applyPatch(root, "m")
	if err != nil {
		t.Fatalf("the refitted patch does not apply: %v", err)
	}
	want := strings.Replace(strings.Replace(moved, "\ta := 1\n", "\ta := 1\n\ta++\n", 1), "b := 1", "b := 2", 1)
	if string(got["x/x.go"]) != want {
		t.Fatalf("patched file:\n%s\nwant:\n%s", got["x/x.go"], want)
	}
	if _, changed, err := refitPatch(root, "m"); err != nil || changed {
		t.Errorf("refit of a fitting patch: changed %v, %v", changed, err)
	}

	write(patchDir+"/m.patch", patch)
	write("x/x.go", strings.Replace(moved, "b := 1", "b := 3", 1))
	if _, _, err := refitPatch(root, "m"); !errors.Is(err, errContextChanged) {
		t.Errorf("refit of a patch whose removed line changed: %v, want errContextChanged", err)
	}
}

// writeFile writes s to rel under root, making its directory.
func writeFile(t *testing.T, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
