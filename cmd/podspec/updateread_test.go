package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/manifest"
)

const updatePod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: upd}
spec:
  containers:
  - {name: web, image: "oci:/layout:latest", command: ["sleep", "60"], env: [{name: V, value: "%s"}]}
`

// storedPod is the stored, defaulted pod an update is validated against.
func storedPod(t *testing.T) *v1alpha1.Pod {
	t.Helper()
	p, err := loadPod("old.yaml", []byte(strings.Replace(updatePod, "%s", "old", 1)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func wantRtError(t *testing.T, err error, code runtimev1.ErrorCode, text string) {
	t.Helper()
	var re *rtError
	if !errors.As(err, &re) || re.code != code || !strings.Contains(re.Error(), text) {
		t.Fatalf("error %v, want %s containing %q", err, code, text)
	}
}

// TestValidateUpdateReadsTheManifestOnce: the new manifest is read once, with the runtime's
// errors for a missing or oversized file, and so it may come from standard input.
func TestValidateUpdateReadsTheManifestOnce(t *testing.T) {
	stored := storedPod(t)
	dir := t.TempDir()

	_, err := validateUpdate(filepath.Join(dir, "missing.yaml"), stored)
	wantRtError(t, err, runtimev1.CodeIO, "read manifest: open "+filepath.Join(dir, "missing.yaml")+": no such file or directory")

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, manifest.DefaultLimits().MaxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = validateUpdate(big, stored)
	wantRtError(t, err, runtimev1.CodeInvalidManifest, "(MAN-007)")

	// Standard input can be read only once: an update from it sees the new manifest.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = w.WriteString(strings.Replace(updatePod, "%s", "new", 1))
		w.Close()
	}()
	saved := os.Stdin
	os.Stdin = r
	t.Cleanup(func() { os.Stdin = saved; r.Close() })
	p, err := validateUpdate("-", stored)
	if err != nil {
		t.Fatalf("update from standard input: %v", err)
	}
	if env := p.Spec.Containers[0].Env; len(env) != 1 || env[0].Value != "new" {
		t.Errorf("the update from standard input has env %+v, want V=new", env)
	}

	// An immutable change is refused with the validator's findings.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(updatePod, "%s", "x", 1)+"  restartPolicy: Never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = validateUpdate(bad, stored)
	wantRtError(t, err, runtimev1.CodeInvalidManifest, "bad.yaml: the update is not valid")
}
