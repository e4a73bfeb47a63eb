package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/reference/supervisor"
)

func init() { register(newStopCmd) }

func newStopCmd() *cobra.Command {
	var grace int64
	var force bool
	cmd := &cobra.Command{
		Use:   "stop POD",
		Short: "Request a graceful (or --force) stop; returns once the request is recorded",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().Int64Var(&grace, "grace-period", -1, "seconds for the whole stop sequence (default: the pod's terminationGracePeriodSeconds; 0 forces)")
	cmd.Flags().BoolVar(&force, "force", false, "SIGKILL every container now: no hooks, no defers")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		return f.requestStop(cmd.Context(), p, grace, force)
	})
	return cmd
}

// requestStop sends a stop request to the pod's supervisor (restarting a dead one first).
// grace < 0 means the pod's own grace period.
func (f *rtFlags) requestStop(ctx context.Context, p *store.Pod, grace int64, force bool) error {
	if err := f.ensureSupervisor(ctx, p); err != nil {
		return err
	}
	st, err := p.ReadState()
	if err != nil {
		return err
	}
	if st.Pod.Status.FinishedAt != nil {
		return nil
	}
	req := &supervisor.Request{Op: supervisor.OpStop, Force: force}
	if grace >= 0 {
		req.GracePeriodSeconds = &grace
	}
	var last error
	for i := 0; i < 50; i++ {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := supervisor.Call(cctx, p, req)
		cancel()
		if err == nil {
			return nil
		}
		last = err
		// The supervisor may have finished the pod or died meanwhile.
		if st, e := p.ReadState(); e == nil && st.Pod.Status.FinishedAt != nil {
			return nil
		}
		if err := f.ensureSupervisor(ctx, p); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return last
}
