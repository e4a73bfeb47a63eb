package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/image"
)

func TestImageBuildVerb(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "tool")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(dir, "layout")
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"a file and a tag build an image", []string{"image", "build", "--file", bin + ":/bin/tool:0755", "--entrypoint", "/bin/tool", "--tag", "v1", layout}, cli.ExitOK},
		{"nothing to put in the image is a usage error", []string{"image", "build", layout}, cli.ExitUsage},
		{"a relative destination is a usage error", []string{"image", "build", "--file", bin + ":bin/tool", layout}, cli.ExitUsage},
		{"a bad mode is a usage error", []string{"image", "build", "--file", bin + ":/bin/tool:999", layout}, cli.ExitUsage},
		{"an env entry without = is a usage error", []string{"image", "build", "--file", bin + ":/t", "--env", "X", layout}, cli.ExitUsage},
		{"a missing source file is an I/O error", []string{"image", "build", "--file", filepath.Join(dir, "missing") + ":/t", layout}, cli.ExitIO},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(tc.args); got != tc.want {
				t.Fatalf("podspec %v exited %d, want %d", tc.args, got, tc.want)
			}
		})
	}
	ref, err := ocilayout.ParseReference("oci:"+layout+":v1", "")
	if err != nil {
		t.Fatal(err)
	}
	img, err := (&image.Store{Root: filepath.Join(dir, "store")}).Resolve(context.Background(), ref)
	if err != nil {
		t.Fatalf("the built image does not resolve: %v", err)
	}
	if len(img.Entrypoint) != 1 || img.Entrypoint[0] != "/bin/tool" {
		t.Fatalf("entrypoint = %v", img.Entrypoint)
	}
}
