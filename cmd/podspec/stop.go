//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/reference/supervisor"
)

func init() { register(newStopCmd) }

func newStopCmd() *cobra.Command {
	var grace gracePeriod
	var force bool
	cmd := &cobra.Command{
		Use:   "stop POD",
		Short: "Request a graceful (or --force) stop; returns once the request is recorded",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().Var(&grace, "grace-period", "seconds (≥ 0) for the whole stop sequence (default: the pod's terminationGracePeriodSeconds; 0 forces; beyond the int64 range: the largest)")
	cmd.Flags().BoolVar(&force, "force", false, "SIGKILL every container now: no hooks, no defers")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.podMaybeUnreadable(args[0])
		if err != nil {
			return err
		}
		defer release()
		return f.requestStop(cmd.Context(), p, grace.seconds, force)
	})
	return cmd
}

// gracePeriod is the value of stop's --grace-period: nil until given. A negative number is a
// usage error (never "the pod's own"); a number beyond the int64 range saturates at the
// largest int64 instead of being refused or wrapping, like every duration the runtime reads.
type gracePeriod struct{ seconds *int64 }

func (g *gracePeriod) String() string {
	if g.seconds == nil {
		return ""
	}
	return strconv.FormatInt(*g.seconds, 10)
}

func (g *gracePeriod) Set(s string) error {
	// Beyond the int64 range ParseInt returns the nearest bound with ErrRange: the largest
	// grace period, or a negative one refused below.
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%q is not a whole number of seconds", s)
	}
	if n < 0 {
		return fmt.Errorf("%s: the grace period must be at least 0 seconds (0 forces the stop)", s)
	}
	g.seconds = &n
	return nil
}

func (g *gracePeriod) Type() string { return "seconds" }

// requestStop sends a stop request to the pod's supervisor (restarting a dead one first).
// grace nil means the pod's own grace period. A pod whose state cannot be read is stopped by
// its live supervisor, which runs it from memory (and whose next write repairs the file); one
// without a supervisor has its containers killed through the OCI runtime.
func (f *rtFlags) requestStop(ctx context.Context, p *store.Pod, grace *int64, force bool) error {
	if _, err := p.ReadState(); errors.Is(err, store.ErrUnreadable) {
		if !p.SupervisorAlive() {
			return f.killUnsupervised(ctx, p, err)
		}
	} else {
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
	}
	// One ID for every try: a request whose answer was lost and that is sent again is
	// recorded once.
	req := &supervisor.Request{Op: supervisor.OpStop, ID: uuid.NewString(), Force: force, GracePeriodSeconds: grace}
	var last error
	for i := 0; i < 50; i++ {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := supervisor.Call(cctx, p, req)
		cancel()
		if err == nil {
			return nil
		}
		var re *supervisor.RemoteError
		if errors.As(err, &re) {
			// The supervisor answered: sending the request again would not change that.
			if re.Code == supervisor.CodeIO {
				return &rtError{code: runtimev1.CodeIO, err: err}
			}
			return err
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

// killUnsupervised kills, with SIGKILL, every OCI container of a pod whose state cannot be read
// and that has no supervisor (none can adopt it without its state), and says so on stderr.
func (f *rtFlags) killUnsupervised(ctx context.Context, p *store.Pod, why error) error {
	s, err := f.store()
	if err != nil {
		return err
	}
	uid, _ := p.Identity()
	n, err := backend.New(s.Root, f.ociRuntime).KillPod(ctx, &engine.PodInfo{Name: p.Name, UID: uid, Dir: p.Dir, Spec: &v1alpha1.PodSpec{}})
	if err != nil {
		return errf(runtimev1.CodeFailed, "stop pod %s: %v (%v)", p.Name, err, why)
	}
	fmt.Fprintf(os.Stderr, "podspec: %v, and no supervisor can adopt the pod: its %d container(s) got SIGKILL (no hooks, no defers); `podspec rm --force %s` removes what is left\n", why, n, p.Name)
	return nil
}
