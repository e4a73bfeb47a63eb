package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/adapters/podman"
	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/spec"
)

// TestParseFollowsTheContract: flags before or after the positional arguments, both long forms,
// the last of a repeated global flag; usage errors for an unknown verb or flag, a missing or
// extra argument, and a flag without its value.
func TestParseFollowsTheContract(t *testing.T) {
	inv, err := parse([]string{"--root", "/a", "--error-format=json", "stop", "web", "--grace-period", "3", "--force", "--root", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.verb != "stop" || inv.args[0] != "web" || inv.flags["grace-period"] != "3" || inv.global["root"] != "/b" || inv.global["error-format"] != "json" {
		t.Errorf("parsed %+v", inv)
	}
	if _, force := inv.flags["force"]; !force {
		t.Errorf("--force lost: %+v", inv)
	}
	for _, bad := range [][]string{{"no-such-verb"}, {"status"}, {"status", "a", "b"}, {"list", "--no-such-flag"}, {"wait", "p", "--timeout"}, {"rm", "--force=yes", "p"}, {}} {
		if _, err := parse(bad); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}

// TestLoadUpdateRefusesLikeTheValidator (UPD-003): a new manifest that changes an immutable
// field is InvalidManifest with the validator's UPD-001 finding at the field's path; one that
// changes only mutable fields is accepted, defaulted.
func TestLoadUpdateRefusesLikeTheValidator(t *testing.T) {
	manifest := func(stopSignal, image string) string {
		return `{"apiVersion":"podspec.dev/v1alpha1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[` +
			`{"name":"app","image":"` + image + `","command":["/probe"],"stopSignal":"` + stopSignal + `"}]}}`
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, _, err := load(write("old.json", manifest("SIGTERM", "oci:img:a")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = loadUpdate(write("bad.json", manifest("SIGUSR1", "oci:img:a")), old)
	var pe *podman.Error
	if !errors.As(err, &pe) || pe.Code != rtv1.CodeInvalidManifest {
		t.Fatalf("a changed stopSignal: %v, want InvalidManifest", err)
	}
	found := false
	for _, f := range pe.Findings {
		found = found || (f.Rule == spec.UPD001 && f.Path == "spec.containers[0].stopSignal")
	}
	if !found {
		t.Errorf("findings %+v, want UPD-001 at spec.containers[0].stopSignal", pe.Findings)
	}
	pod, err := loadUpdate(write("good.json", manifest("SIGTERM", "oci:img:b")), old)
	if err != nil || pod.Spec.Containers[0].Image != "oci:img:b" || pod.Spec.RestartPolicy == "" {
		t.Errorf("a changed image: %v, %+v; want it accepted and defaulted", err, pod)
	}
}
