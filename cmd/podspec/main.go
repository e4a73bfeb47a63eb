// Command podspec validates pod manifests and runs pods on the reference runtime.
//
// Each verb lives in its own file and registers itself with register; main only wires them to
// the root command and turns errors into the documented exit codes.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
)

// verbs collects the constructors of every verb; filled by init functions in this package.
var verbs []func() *cobra.Command

// register adds a verb constructor; called from init functions of the verb files.
func register(newCmd func() *cobra.Command) { verbs = append(verbs, newCmd) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "podspec",
		Short:         "Validate pod manifests and run pods with the podspec lifecycle",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       readBuild().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	})
	for _, v := range verbs {
		root.AddCommand(v())
	}
	return root
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return cli.ExitOK
	}
	code, msg := cli.Status(err)
	if msg == nil {
		return code
	}
	if code == cli.ExitUsage && jsonErrors(args) {
		// The runtime contract's error JSON, also for errors found before a verb ran
		// (unknown flags, wrong argument counts).
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "Usage", "message": msg.Error()}})
		fmt.Fprintln(os.Stderr, string(b))
		return code
	}
	fmt.Fprintln(os.Stderr, "podspec:", msg)
	return code
}

// jsonErrors reports whether the command line asks for the contract's JSON error reports
// (--error-format json), looked up in the raw arguments because a usage error may come before
// the flags are parsed.
func jsonErrors(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--error-format=json" || (a == "--error-format" && i+1 < len(args) && args[i+1] == "json") {
			return true
		}
	}
	return false
}
