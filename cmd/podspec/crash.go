//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newCrashCmd) }

// crashTimeout bounds how long `crash` waits for the supervisor to be gone.
const crashTimeout = 15 * time.Second

func newCrashCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "crash POD",
		Short: "Fault injection (profile recovery): SIGKILL the pod's supervisor and wait until it is gone",
		Long: "Kills the pod's supervisor with SIGKILL, as a crash would, and returns once it is gone; the\n" +
			"containers are left alone. crash itself starts no new supervisor: the next verb that touches\n" +
			"the pod does, and that supervisor adopts the pod. A terminal pod, or one whose supervisor is\n" +
			"already gone, is left as it is.",
		Args: cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		ctx, cancel := context.WithTimeout(cmd.Context(), crashTimeout)
		defer cancel()
		return crashSupervisor(ctx, p)
	})
	return cmd
}

// crashSupervisor kills the pod's live supervisor and waits until it has exited and released the
// pod's supervisor lock. It never signals a process whose start time differs from the recorded
// one (a reused pid).
func crashSupervisor(ctx context.Context, p *store.Pod) error {
	var killed *store.SupervisorInfo
	for {
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		if killed == nil && st.Pod.Status != nil && st.Pod.Status.FinishedAt != nil {
			return nil // terminal: nothing to crash
		}
		alive := p.SupervisorAlive()
		if killed != nil && !alive && !running(killed.PID, killed.StartTime) {
			return nil
		}
		if killed == nil && !alive {
			return nil // already gone; the next verb adopts the pod
		}
		sup := st.Supervisor
		if killed == nil && sup.PID > 0 && running(sup.PID, sup.StartTime) {
			if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("kill supervisor %d of %s: %w", sup.PID, p.Name, err)
			}
			killed = &sup
		}
		// Otherwise a supervisor holds the lock but has not recorded its pid yet: look again.
		select {
		case <-ctx.Done():
			return fmt.Errorf("the supervisor of %s is still there: %w", p.Name, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// running reports whether pid is the process that started at startTime and has not exited
// (a zombie has exited).
func running(pid int, startTime uint64) bool {
	if startTime == 0 || procstat.StartTime(pid) != startTime {
		return false
	}
	st, err := procstat.Read(pid)
	return err == nil && !st.Ended()
}
