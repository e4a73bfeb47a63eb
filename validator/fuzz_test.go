package validator_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/report"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

// FuzzDecodeAndValidate runs the whole pipeline as podspec validate runs it by default (decode,
// kind check, JSON Schema and semantic engines, positions, suppression) and every report format
// and the conversion of podspec convert on arbitrary bytes. (Package cue has its own tests against the same corpus.) It must never
// panic, every finding must carry a known rule ID and a position that is either known and
// 1-based or unknown (0), and the validator must agree with the decoder `podspec run` uses
// (CheckRunAgrees in edges_test.go). The seeds put numbers at the edges of their types (2^31, 2^63, beyond 64
// bits, 1e400, -0) in every duration field.
//
//	go test ./validator -run '^$' -fuzz FuzzDecodeAndValidate -fuzztime 30s
func FuzzDecodeAndValidate(f *testing.F) {
	for _, dir := range []string{"valid", "invalid", "update", "kubernetes"} {
		for _, file := range validator.CorpusFiles(f, filepath.Join(validator.Corpus, dir)) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, file := range validator.CorpusFiles(f, "../examples") {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("<<: [*x]\n"))
	f.Add([]byte("{\"apiVersion\": \"podspec.dev/v1alpha1\", \"kind\": \"Pod\", \"spec\": {\"containers\": null}}"))
	for _, seed := range validator.NumericEdgeSeeds() {
		f.Add(seed)
	}

	v, err := validator.New(validator.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		results := v.Bytes("fuzz.yaml", data)
		validator.CheckRunAgrees(t, data, results)
		for _, c := range v.Convert("fuzz.yaml", data, validator.Either) {
			if c.Skipped != "" && len(c.Objects) > 0 {
				t.Errorf("document %d skipped (%s) yet converted", c.Result.Document, c.Skipped)
			}
		}
		for _, r := range results {
			for _, fd := range r.Findings {
				if r, ok := spec.Lookup(fd.Rule); !ok || !r.IsRule() {
					t.Errorf("unknown rule %q in %+v", fd.Rule, fd)
				}
				if fd.Pos.Line < 0 || fd.Pos.Column < 0 || (fd.Pos.Line == 0 && fd.Pos.Column != 0) {
					t.Errorf("bad position %+v", fd.Pos)
				}
			}
		}
		for _, format := range report.Formats() {
			w, err := report.New(format, io.Discard, report.Options{Rules: spec.Rules()})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if err := w.Result(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(validator.Summary{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
