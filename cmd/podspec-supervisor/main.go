// Command podspec-supervisor is the reference runtime's per-pod supervisor process: the same
// code as the hidden `podspec supervise` verb, in a binary that links only the runtime (store,
// engine, backend, OCI runtime driver) and none of the validator (CUE, JSON Schema), the
// conformance suite (Ginkgo) or the command-line framework. One runs per pod for the pod's
// whole life, so its start time and its memory count for every pod.
//
// `podspec run` starts it (and verbs start it again to adopt a pod) when it lies beside the
// podspec binary as PODSPEC-supervisor and comes from the same build; otherwise podspec runs
// its own `supervise` verb. Build both together:
//
//	go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor
//
// Usage (not for direct use): podspec-supervisor supervise --root DIR [--oci-runtime BIN] POD
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/supervisor"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "supervise" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("podspec-supervisor", flag.ContinueOnError)
	root := fs.String("root", "", "state directory (required)")
	rt := fs.String("oci-runtime", oci.DefaultBinary, "OCI runtime binary")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || *root == "" {
		fmt.Fprintln(os.Stderr, "usage: podspec-supervisor supervise --root DIR [--oci-runtime BIN] POD")
		return 2
	}
	if err := supervisor.Main(context.Background(), *root, *rt, fs.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "podspec-supervisor:", err)
		return 1
	}
	return 0
}
