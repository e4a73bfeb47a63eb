//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
)

func init() { register(newLogsCmd) }

func newLogsCmd() *cobra.Command {
	var previous bool
	cmd := &cobra.Command{
		Use:   "logs POD CONTAINER",
		Short: "Print the output of a container's current (or --previous) instance, also after exit",
		Args:  cli.Args(2),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().BoolVar(&previous, "previous", false, "the instance before the current one")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		if err := f.ensureSupervisor(cmd.Context(), p); err != nil {
			return err
		}
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		name := args[1]
		var n int32 = -1
		for _, list := range [][]string{names(st.Pod.Spec.InitContainers), names(st.Pod.Spec.Containers)} {
			for _, c := range list {
				if c == name {
					n = 0
				}
			}
		}
		for _, d := range st.Pod.Spec.DeferContainers {
			if d.Name == name {
				n = 0
			}
		}
		if n < 0 {
			return errf(runtimev1.CodeNotFound, "pod %s has no container %q", args[0], name)
		}
		for _, cs := range append(append(st.Pod.Status.InitContainerStatuses, st.Pod.Status.ContainerStatuses...), st.Pod.Status.DeferContainerStatuses...) {
			if cs.Name == name {
				n = cs.RestartCount
			}
		}
		if previous {
			n--
			if n < 0 {
				return nil
			}
		}
		lf, err := os.Open(p.LogPath(name, n))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("read logs: %w", err)}
		}
		defer lf.Close()
		_, err = io.Copy(os.Stdout, lf)
		return err
	})
	return cmd
}

func names(cs []v1alpha1.Container) []string {
	out := make([]string, len(cs))
	for i := range cs {
		out[i] = cs[i].Name
	}
	return out
}
