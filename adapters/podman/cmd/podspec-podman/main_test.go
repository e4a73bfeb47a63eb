package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestSUP011_SUP012_TheStateRootIsTheAdapters: every verb but version opens the root as the
// reference runtime does: a root another user owns, and a directory of the adapter's below it
// that is a symbolic link, are refused (Failed) with nothing written; a root of the adapter's
// own user that group and others may write loses that permission.
func TestSUP011_SUP012_TheStateRootIsTheAdapters(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (gives a directory to another user)")
	}
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(root, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"--root", root, "list"}); code != rtv1.CodeFailed.ExitStatus() {
		t.Errorf("list in a root owned by uid 65534: exit status %d, want %d (Failed)", code, rtv1.CodeFailed.ExitStatus())
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("the refused root got %d entries", len(ents))
	}
	a := &podman.Adapter{Root: root}
	err := a.Open()
	var pe *podman.Error
	if !errors.As(err, &pe) || pe.Code != rtv1.CodeFailed || !strings.Contains(pe.Message, root) || !strings.Contains(pe.Message, "uid 65534") {
		t.Errorf("open a root owned by uid 65534: %v, want Failed naming the root and its owner", err)
	}

	if err := os.Chown(root, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o777); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"--root", root, "list"}); code != 0 {
		t.Errorf("list in a root of the adapter's own user: exit status %d", code)
	}
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the root after list: %v %v, want mode 0700", fi.Mode(), err)
	}

	if err := os.Symlink(t.TempDir(), filepath.Join(root, "pods")); err != nil {
		t.Fatal(err)
	}
	if err := a.Open(); !errors.As(err, &pe) || pe.Code != rtv1.CodeFailed || !strings.Contains(pe.Message, filepath.Join(root, "pods")) {
		t.Errorf("open a root whose pods directory is a symbolic link: %v, want Failed naming it", err)
	}
}
