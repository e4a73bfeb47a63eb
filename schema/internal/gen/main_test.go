package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedSchemasMatchTheCUESource regenerates the JSON Schemas in process from ../../../cue
// and fails when a committed file in ../.. differs: run `go generate ./schema/` and commit.
func TestCommittedSchemasMatchTheCUESource(t *testing.T) {
	files, err := generate(filepath.Join("..", "..", "..", "cue"))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if len(files) != len(kinds) {
		t.Fatalf("generated %d files, want %d", len(files), len(kinds))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./schema/)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("schema/%s is out of date with cue/*.cue: run go generate ./schema/ and commit the result", name)
		}
	}
	committed, err := filepath.Glob(filepath.Join("..", "..", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range committed {
		if _, ok := files[filepath.Base(path)]; !ok {
			t.Errorf("schema/%s is not generated from any CUE definition: delete it", filepath.Base(path))
		}
	}
}

func TestFileNamesAreKebabCase(t *testing.T) {
	for kind, want := range map[string]string{
		"Pod":                   "pod.json",
		"PodStatus":             "pod-status.json",
		"PodNotificationRecord": "pod-notification-record.json",
	} {
		if got := FileName(kind); got != want {
			t.Errorf("FileName(%q) = %q, want %q", kind, got, want)
		}
	}
}
