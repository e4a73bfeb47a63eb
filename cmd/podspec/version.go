//go:build linux

package main

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/oci"
)

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the runtime contract version, the runtime and the OCI runtime in use (JSON)",
		Long: "Print the runtime contract version, the runtime (its version is the release and the commit it\n" +
			"was built from, 0.1.0+3f2c1ab09d1e, from the Go build information), the OCI runtime in use and the\n" +
			"profiles, as JSON. podspec --version prints the release and commit as one line.",
		Args: cli.Args(0),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		out := runtimev1.Version{
			ContractVersion: runtimev1.ContractVersion,
			Runtime:         runtimev1.RuntimeInfo{Name: "podspec-reference", Version: readBuild().version()},
			Profiles: []runtimev1.Profile{runtimev1.ProfileCore, runtimev1.ProfileDefer, runtimev1.ProfileNotifier,
				runtimev1.ProfileUpdate, runtimev1.ProfileGC, runtimev1.ProfileRecovery},
		}
		// Everything of the reference's pods lives under the root (docs/runtime.md, "State on
		// disk"): the pod directories, runc's own state (ROOT/runc), the image cache, shared
		// volumes and Notifications. version does not create it (it may run with an empty root).
		root, err := filepath.Abs(f.root)
		if err != nil {
			return errf(runtimev1.CodeIO, "state root %s: %v", f.root, err)
		}
		out.StateDirectories = []string{root}
		ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
		defer cancel()
		if path, err := f.ociRuntimePath(); err == nil {
			r := &oci.Runtime{Binary: path}
			info := &runtimev1.OCIRuntimeInfo{Path: path}
			if v, err := r.Version(ctx); err == nil {
				if fs := strings.Fields(v); len(fs) > 0 {
					info.Name = fs[0]
					if len(fs) >= 3 {
						info.Version = fs[2]
					}
				}
			}
			out.OCIRuntime = info
		}
		return cli.PrintJSON(out)
	})
	return cmd
}
