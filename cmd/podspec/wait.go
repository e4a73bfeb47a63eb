//go:build linux

package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/supervisor"
)

func init() { register(newWaitCmd) }

func newWaitCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait POD",
		Short: "Block until a pod is terminal, then print its final status (JSON)",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (Go duration; 0: wait forever)")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		ctx := cmd.Context()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		for {
			if err := f.ensureSupervisor(ctx, p); err != nil && ctx.Err() == nil {
				return err
			}
			st, err := p.ReadState()
			if err != nil {
				return err
			}
			if supervisor.Finished(p, st) {
				return cli.PrintJSON(st.Pod.Status)
			}
			select {
			case <-ctx.Done():
				return errf(runtimev1.CodeTimeout, "pod %s is not terminal after %s", args[0], timeout)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	return cmd
}
