// Command podspec-conformance is the conformance suite's runner: it certifies any runtime that
// implements docs/runtime-interface.md (run), checks a runtime's command-line contract
// (check-runtime), verifies certification bundles (verify) and renders them as HTML pages
// (report). `podspec conformance ARGS` runs it with the same arguments.
//
// It is a binary of its own because it links Ginkgo, Gomega and the whole suite: podspec, whose
// runtime verbs sit on the measured start and stop path of every pod, starts in half the time
// without them (docs/benchmarks.md).
package main

import (
	"fmt"
	"os"

	"podspec.dev/podspec/cmd/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	code, msg := cli.Status(root.Execute())
	if msg != nil {
		fmt.Fprintln(os.Stderr, "podspec-conformance:", msg)
	}
	return code
}
