package certreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"podspec.dev/podspec/conformance/certify"
	"podspec.dev/podspec/conformance/suites"
)

// bigBundle writes a bundle of 400 specs from the failing fixture: 40 failed ones, each
// carrying the fixture's failure with its recorded timeline, and 360 passed ones, with the
// fixture's coverage matrix (the suite's 218 runtime requirements) marked to match.
func bigBundle(b *testing.B) string {
	b.Helper()
	src := unpack(b, "failing")
	bundle, err := Load(src)
	if err != nil {
		b.Fatal(err)
	}
	var failed, other types.SpecReport
	for _, sr := range bundle.Report.SpecReports {
		switch {
		case sr.LeafNodeType == types.NodeTypeIt && sr.State == types.SpecStateFailed:
			failed = sr
		case sr.LeafNodeType == types.NodeTypeIt:
			other = sr
		}
	}
	var specs []types.SpecReport
	for i := range 400 {
		sr := other
		sr.State = types.SpecStatePassed
		if i%10 == 0 {
			sr = failed
		}
		sr.LeafNodeText = fmt.Sprintf("%s #%d", sr.LeafNodeText, i)
		specs = append(specs, sr)
	}
	rep := bundle.Report
	rep.SpecReports = specs
	data, err := json.Marshal([]types.Report{rep})
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, certify.ReportFile), data, 0o644)
	rows := bundle.Coverage
	for i := range rows {
		rows[i].Verdict = suites.VerdictPassed
		if i%6 == 0 {
			rows[i].Verdict = suites.VerdictFailed
		}
	}
	data, _ = json.Marshal(rows)
	os.WriteFile(filepath.Join(src, certify.CoverageJSON), data, 0o644)
	return src
}

// BenchmarkReport400Specs loads a 400-spec bundle with 40 failures (each with its timeline)
// and renders its report (docs/benchmarks.md).
func BenchmarkReport400Specs(b *testing.B) {
	dir := bigBundle(b)
	var size int
	b.ResetTimer()
	for b.Loop() {
		bundle, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Render(&buf, bundle); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

// BenchmarkMatrix4Bundles renders the matrix page of four such bundles (loaded once).
func BenchmarkMatrix4Bundles(b *testing.B) {
	dir := bigBundle(b)
	var bundles []*Bundle
	for range 4 {
		bundle, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		bundles = append(bundles, bundle)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := RenderMatrix(io.Discard, bundles); err != nil {
			b.Fatal(err)
		}
	}
}
