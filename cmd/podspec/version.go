package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/oci"
)

// runtimeVersion is the reference runtime's version, reported by `podspec version`.
const runtimeVersion = "0.1.0"

// contractVersion is the runtime interface version implemented (docs/runtime-interface.md).
const contractVersion = "1.1"

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the runtime contract version, the runtime and the OCI runtime in use (JSON)",
		Args:  cli.Args(0),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		out := map[string]any{
			"contractVersion": contractVersion,
			"runtime":         map[string]string{"name": "podspec-reference", "version": runtimeVersion},
			"profiles":        []string{"core", "defer", "notifier", "update", "gc", "recovery"},
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
		defer cancel()
		if path, err := f.ociRuntimePath(); err == nil {
			r := &oci.Runtime{Binary: path}
			info := map[string]string{"path": path}
			if v, err := r.Version(ctx); err == nil {
				fs := strings.Fields(v)
				info["name"] = fs[0]
				if len(fs) >= 3 {
					info["version"] = fs[2]
				}
			}
			out["ociRuntime"] = info
		}
		return cli.PrintJSON(out)
	})
	return cmd
}
