package validator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"podspec.dev/podspec/bench/podgen"
	"podspec.dev/podspec/manifest"
)

// Benchmarks of the pipeline on the realistic manifests bench/gen writes:
//
//	go test ./validator -run '^$' -bench . -benchmem
//
// BenchmarkBytes measures one document through decode, schema and semantic checks (per core);
// BenchmarkRun a directory of 1,000 files end to end with the default workers.
func BenchmarkBytes(b *testing.B) {
	for _, tc := range []struct {
		name    string
		engines []string
		invalid bool
	}{
		{"decode only", []string{}, false},
		{"schema", []string{EngineSchema}, false},
		{"semantic", []string{EngineSemantic}, false},
		{"default engines", nil, false},
		{"default engines, invalid", nil, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			data := []byte(podgen.Pod(1, tc.invalid))
			var v *Validator
			var err error
			if tc.engines != nil && len(tc.engines) == 0 {
				v = &Validator{opts: Options{Limits: manifest.DefaultLimits()}}
			} else {
				v, err = New(Options{Engines: tc.engines})
			}
			if err != nil {
				b.Fatal(err)
			}
			v.Bytes("pod.yaml", data) // compile schemas outside the timing
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			cpu := processCPU()
			for b.Loop() {
				v.Bytes("pod.yaml", data)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	const n = 1000
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pod-%05d.yaml", i)), []byte(podgen.Pod(i, false)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	v, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := processCPU()
	for b.Loop() {
		sum, err := v.Run(context.Background(), []string{dir}, nil, func(*Result) error { return nil })
		if err != nil || sum.Documents != n || sum.Errors != 0 {
			b.Fatalf("run: %+v %v", sum, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "manifests/s")
	b.ReportMetric(float64(processCPU()-cpu)/float64(n*b.N), "cpu-ns/manifest")
}

// processCPU is the user+system CPU time the process has used, in nanoseconds: on a shared
// machine it is a steadier measure than wall time (it includes the garbage collector's work).
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
