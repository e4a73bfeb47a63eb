package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

// copyExe copies the running test binary to path (a binary whose build information is this
// process's own).
func copyExe(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSupervisorBinaryIsTheSiblingOfTheSameBuildOnly(t *testing.T) {
	if _, ok := debug.ReadBuildInfo(); !ok {
		t.Skip("the test binary carries no build information")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "podspec")
	sib := self + "-supervisor"
	copyExe(t, self, 0o755)
	if got := supervisorBinary(self); got != self {
		t.Errorf("without a sibling: %s, want %s", got, self)
	}
	copyExe(t, sib, 0o755)
	if got := supervisorBinary(self); got != sib {
		t.Errorf("with a sibling of the same build: %s, want %s", got, sib)
	}
	if err := os.Chmod(sib, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := supervisorBinary(self); got != self {
		t.Errorf("with a sibling that is not executable: %s, want %s", got, self)
	}
	if err := os.Chmod(sib, 0o755); err != nil {
		t.Fatal(err)
	}
	mine, _ := debug.ReadBuildInfo()
	if buildSetting(mine, "vcs.modified") != "false" {
		old := time.Now().Add(-2 * time.Minute)
		if err := os.Chtimes(sib, old, old); err != nil {
			t.Fatal(err)
		}
		if got := supervisorBinary(self); got != self {
			t.Errorf("with a sibling written two minutes before podspec: %s, want %s", got, self)
		}
	}
	if err := os.WriteFile(sib, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := supervisorBinary(self); got != self {
		t.Errorf("with a sibling that is not a Go binary: %s, want %s", got, self)
	}
}

func TestSameBuildComparesTagsDependenciesAndToolchain(t *testing.T) {
	base := func() *debug.BuildInfo {
		return &debug.BuildInfo{
			GoVersion: "go1.26.8",
			Main:      debug.Module{Path: "podspec.dev/podspec", Version: "(devel)"},
			Deps:      []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.30.0", Sum: "h1:a"}, {Path: "cuelang.org/go", Version: "v0.12.0"}},
			Settings:  []debug.BuildSetting{{Key: "-tags", Value: ""}, {Key: "GOARCH", Value: "amd64"}},
		}
	}
	// The supervisor links a subset of podspec's dependencies.
	sup := base()
	sup.Deps = sup.Deps[:1]
	if !sameBuild(base(), sup) {
		t.Errorf("a supervisor linking a subset of the same dependencies is not the same build")
	}
	for name, change := range map[string]func(b *debug.BuildInfo){
		"another Go version":          func(b *debug.BuildInfo) { b.GoVersion = "go1.25.0" },
		"build tags (a mutant build)": func(b *debug.BuildInfo) { b.Settings[0].Value = "mutant_no_backoff" },
		"a dependency version":        func(b *debug.BuildInfo) { b.Deps[0].Version = "v0.31.0" },
		"a dependency replaced":       func(b *debug.BuildInfo) { b.Deps[0].Replace = &debug.Module{Path: "../sys"} },
		"an extra setting": func(b *debug.BuildInfo) {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: "-race", Value: "true"})
		},
		"another main module": func(b *debug.BuildInfo) { b.Main.Path = "example.com/other" },
	} {
		other := base()
		other.Deps = other.Deps[:1]
		change(other)
		if sameBuild(base(), other) {
			t.Errorf("a supervisor with %s is taken for the same build", name)
		}
	}
}
