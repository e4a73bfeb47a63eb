//go:build linux

package main

import (
	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/supervisor"
)

func init() { register(newSuperviseCmd) }

// newSuperviseCmd is the hidden verb that is a pod's supervisor process when no
// podspec-supervisor binary of the same build lies beside this one (supervisorBinary). `run`
// starts it detached; any verb restarts it (adoption) when it died.
func newSuperviseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "supervise POD",
		Short:  "Run the supervisor of one pod (started by run; not for direct use)",
		Hidden: true,
		Args:   cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		return supervisor.Main(cmd.Context(), f.root, f.ociRuntime, args[0])
	})
	return cmd
}
