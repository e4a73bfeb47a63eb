package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newRmCmd) }

func newRmCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "rm POD",
		Short: "Remove a terminal pod: state, logs, filesystems, volumes (--force stops it first)",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "force-stop a pod that is not terminal, then remove it")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		s, err := f.store()
		if err != nil {
			return err
		}
		p, err := s.Pod(args[0])
		if err != nil {
			return &rtError{code: codeNotFound, err: fmt.Errorf("pod %q not found", args[0])}
		}
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		if st.Pod.Status.FinishedAt == nil {
			if !force {
				return errf(codeConflict, "pod %s is %s, not terminal: stop it first or use --force", p.Name, st.Pod.Status.Phase)
			}
			if err := f.forceStopAndWait(cmd.Context(), p); err != nil {
				return err
			}
		}
		return f.removePod(cmd.Context(), s, p, true)
	})
	return cmd
}

// forceStopAndWait stops a pod forcibly and waits until it is terminal.
func (f *rtFlags) forceStopAndWait(ctx context.Context, p *store.Pod) error {
	zero := int64(0)
	if err := f.requestStop(ctx, p, &zero, true); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		if st.Pod.Status.FinishedAt != nil {
			return nil
		}
		if err := f.ensureSupervisor(ctx, p); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errf(codeFailed, "pod %s did not stop", p.Name)
}

// removePod removes a terminal pod under the exclusive reader lock. With wait it waits for
// readers to finish; without (gc) a pod being read is skipped and store.ErrBusy returned.
func (f *rtFlags) removePod(ctx context.Context, s *store.Store, p *store.Pod, wait bool) error {
	var lock *store.Lock
	for {
		l, err := p.TryRemoveLock()
		if err == nil {
			lock = l
			break
		}
		if !errors.Is(err, store.ErrBusy) || !wait {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	defer lock.Unlock()
	st, err := p.ReadState()
	if err != nil {
		return err
	}
	if p.SupervisorAlive() {
		// The supervisor records PodFinished and then exits; give it a moment.
		for i := 0; i < 250 && p.SupervisorAlive(); i++ {
			time.Sleep(20 * time.Millisecond)
		}
	}
	be := backend.New(s.Root, f.ociRuntime)
	info := &engine.PodInfo{Name: p.Name, UID: st.Pod.Status.UID, Dir: p.Dir, Spec: &st.Pod.Spec}
	if err := be.RemovePod(ctx, info, st.Sandbox); err != nil {
		return errf(codeFailed, "remove pod %s: %v", p.Name, err)
	}
	if err := p.Remove(); err != nil {
		return err
	}
	// Only once the pod is gone: a crash in between leaks a reference (the volume is kept),
	// never deletes a volume a pod still declares (VOL-011, VOL-012, VOL-013).
	if _, err := s.ReleaseSharedVolumes(info.UID, st.Pod.Spec.Volumes); err != nil {
		return errf(codeFailed, "remove pod %s: %v", p.Name, err)
	}
	return nil
}
