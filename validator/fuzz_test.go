package validator

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/report"
)

// FuzzDecodeAndValidate runs the whole pipeline as podspec validate runs it by default (decode,
// kind check, JSON Schema and semantic engines, positions, suppression) and every report format
// on arbitrary bytes. (Package cue has its own tests against the same corpus.) It must never
// panic, and every finding must carry a known rule ID and a position that is either known and
// 1-based or unknown (0).
//
//	go test ./validator -run '^$' -fuzz FuzzDecodeAndValidate -fuzztime 30s
func FuzzDecodeAndValidate(f *testing.F) {
	for _, dir := range []string{"valid", "invalid", "update"} {
		for _, file := range corpusFiles(f, filepath.Join(corpus, dir)) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, file := range corpusFiles(f, "../examples") {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("<<: [*x]\n"))
	f.Add([]byte("{\"apiVersion\": \"podspec.dev/v1alpha1\", \"kind\": \"Pod\", \"spec\": {\"containers\": null}}"))

	v, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.ID] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		results := v.Bytes("fuzz.yaml", data)
		for _, r := range results {
			for _, fd := range r.Findings {
				if !known[fd.Rule] {
					t.Errorf("unknown rule %q in %+v", fd.Rule, fd)
				}
				if fd.Pos.Line < 0 || fd.Pos.Column < 0 || (fd.Pos.Line == 0 && fd.Pos.Column != 0) {
					t.Errorf("bad position %+v", fd.Pos)
				}
			}
		}
		for _, format := range report.Formats() {
			w, err := report.New(format, io.Discard, report.Options{Rules: Rules()})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if err := w.Result(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(report.Summary{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
