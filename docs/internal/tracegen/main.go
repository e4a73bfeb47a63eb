// Command tracegen writes docs/traceability.md: for every requirement of the registry, the
// validator corpus cases, the Go tests and the conformance specs that check it. It is run by
// `go generate ./docs/` (see docs/generate.go); its tests fail when the committed file is stale.
//
// It reads the module's source tree and makes a dry run of the conformance suite, so it lives
// apart from package docs, which must not depend on the suite or the runtime.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"podspec.dev/podspec/conformance/suites"
)

func main() {
	out := flag.String("o", "traceability.md", "the file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return err
	}
	report, err := suites.DryRun(nil)
	if err != nil {
		return err
	}
	tr, err := collect(root, report)
	if err != nil {
		return err
	}
	if len(tr.problems) > 0 {
		for _, p := range tr.problems {
			fmt.Fprintln(os.Stderr, "tracegen:", p)
		}
		return fmt.Errorf("%d references to unknown requirements", len(tr.problems))
	}
	if err := os.WriteFile(out, []byte(render(tr)), 0o644); err != nil {
		return err
	}
	abs, _ := filepath.Abs(out)
	fmt.Printf("\ntracegen: wrote %s\n", abs) // after the line the dry run printed
	return nil
}
