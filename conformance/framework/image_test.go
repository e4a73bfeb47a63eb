package framework

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/ocilayout"
)

// TestAProbeThatNeedsADynamicLoaderIsRefused: the test image has no libc, so a probe built with
// cgo (the default of a plain `go build` on a host with gcc) would make every container exit 1
// with "no such file or directory". Building the image refuses it, saying how to build it.
func TestAProbeThatNeedsADynamicLoaderIsRefused(t *testing.T) {
	dynamic := "/bin/ls" // Debian's coreutils: always dynamically linked
	if _, err := os.Stat(dynamic); err != nil {
		t.Skip(err)
	}
	err := CheckStatic(dynamic)
	if !errors.Is(err, ErrNotStatic) || !strings.Contains(err.Error(), "ld-linux") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("CheckStatic(%s) = %v; want ErrNotStatic naming the loader and CGO_ENABLED=0", dynamic, err)
	}
	dir := t.TempDir()
	for name, build := range map[string]func() error{
		"BuildProbeImage": func() error {
			_, err := BuildProbeImage(context.Background(), filepath.Join(dir, "a"), dynamic, "")
			return err
		},
		"BuildProbeImageUser": func() error {
			_, err := BuildProbeImageUser(context.Background(), filepath.Join(dir, "b"), dynamic, "1000")
			return err
		},
		"BuildProbeImageWithFiles": func() error {
			_, err := BuildProbeImageWithFiles(context.Background(), filepath.Join(dir, "c"), dynamic, "t", map[string]string{"/x": "x"})
			return err
		},
	} {
		if err := build(); !errors.Is(err, ErrNotStatic) {
			t.Errorf("%s with a dynamic probe: %v, want ErrNotStatic", name, err)
		}
	}

	text := filepath.Join(dir, "script")
	if err := os.WriteFile(text, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckStatic(text); !errors.Is(err, ErrNotStatic) {
		t.Errorf("CheckStatic of a shell script = %v, want ErrNotStatic", err)
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err == nil {
		if err := CheckStatic(ocilayout.BusyboxPath); err != nil {
			t.Errorf("CheckStatic of busybox-static: %v, want nil", err)
		}
	}
}
