// Command gen writes realistic pod manifests for benchmarking podspec validate:
//
//	go run ./bench/gen -n 10000 -out DIR [-invalid 100] [-multi]
//
// It writes DIR/pod-00000.yaml … (or, with -multi, one DIR/pods.yaml holding every manifest as
// a separate document). The first -invalid manifests carry one error each.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"podspec.dev/podspec/bench/podgen"
)

func main() {
	n := flag.Int("n", 10000, "number of manifests")
	out := flag.String("out", "", "output directory (created)")
	invalid := flag.Int("invalid", 0, "number of manifests, from the first, that carry an error")
	multi := flag.Bool("multi", false, "write one multi-document file instead of one file per manifest")
	flag.Parse()
	if *out == "" || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -n N -out DIR [-invalid K] [-multi]")
		os.Exit(2)
	}
	if err := generate(*out, *n, *invalid, *multi); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func generate(dir string, n, invalid int, multi bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if multi {
		name := filepath.Join(dir, "pods.yaml")
		f, err := os.Create(name)
		if err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
		w := bufio.NewWriter(f)
		for i := range n {
			if i > 0 {
				w.WriteString("---\n")
			}
			w.WriteString(podgen.Pod(i, i < invalid))
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", name, err)
		}
		return f.Close()
	}
	for i := range n {
		name := filepath.Join(dir, fmt.Sprintf("pod-%05d.yaml", i))
		if err := os.WriteFile(name, []byte(podgen.Pod(i, i < invalid)), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}
