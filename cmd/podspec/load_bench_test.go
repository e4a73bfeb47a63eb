package main

import (
	"os"
	"testing"
)

// BenchmarkLoadPod is the manifest's share of `podspec run`'s start: validate it as
// `podspec validate` does and get the defaulted Pod to run.
//
//	go test ./cmd/podspec -run '^$' -bench LoadPod
func BenchmarkLoadPod(b *testing.B) {
	data, err := os.ReadFile("../../examples/demo.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := loadPod("demo.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
