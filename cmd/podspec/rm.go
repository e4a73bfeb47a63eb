//go:build linux

package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
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
			return podNotFound(args[0])
		}
		st, err := p.ReadState()
		if errors.Is(err, store.ErrUnreadable) {
			if !force {
				return errf(runtimev1.CodeConflict, "%v: whether pod %s is terminal cannot be told; `podspec rm --force %s` removes it", err, p.Name, p.Name)
			}
			return f.removeUnreadable(cmd.Context(), s, p)
		}
		if err != nil {
			return err
		}
		if st.Pod.Status.FinishedAt == nil {
			if !force {
				return errf(runtimev1.CodeConflict, "pod %s is %s, not terminal: stop it first or use --force", p.Name, st.Pod.Status.Phase)
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
		if errors.Is(err, store.ErrUnreadable) && p.SupervisorAlive() {
			// The supervisor runs the pod from memory; its next write repairs the file.
			time.Sleep(20 * time.Millisecond)
			continue
		}
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
	return errf(runtimev1.CodeFailed, "pod %s did not stop", p.Name)
}

// removeUnreadable removes a pod whose state cannot be read. A live supervisor still runs it
// from memory: it gets a forced stop, whose state write repairs the file, and the pod is then
// removed as usual. Without a supervisor, the OCI containers of the pod's bundles are deleted
// (killed first), its cgroups, sandbox and mounts are removed by the UID its events log
// records, then its directory and its shared volumes' references.
func (f *rtFlags) removeUnreadable(ctx context.Context, s *store.Store, p *store.Pod) error {
	if p.SupervisorAlive() {
		err := f.forceStopAndWait(ctx, p)
		if err == nil {
			return f.removePod(ctx, s, p, true)
		}
		if !errors.Is(err, store.ErrUnreadable) || p.SupervisorAlive() {
			return err
		}
		// The supervisor ended without writing the state again: remove what is left.
	}
	lock, err := removalLock(ctx, p, true)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	uid, _ := p.Identity()
	info := &engine.PodInfo{Name: p.Name, UID: uid, Dir: p.Dir, Spec: &v1alpha1.PodSpec{}}
	if err := backend.New(s.Root, f.ociRuntime).RemovePod(ctx, info, nil); err != nil {
		return errf(runtimev1.CodeFailed, "remove pod %s: %v", p.Name, err)
	}
	if err := p.Remove(); err != nil {
		return err
	}
	if uid != "" {
		if _, err := s.ReleaseSharedVolumesOf(uid); err != nil {
			return errf(runtimev1.CodeFailed, "remove pod %s: %v", p.Name, err)
		}
	}
	return nil
}

// removalLock takes the pod's exclusive reader lock. With wait it waits for readers to finish;
// without, a pod being read is store.ErrBusy.
func removalLock(ctx context.Context, p *store.Pod, wait bool) (*store.Lock, error) {
	for {
		l, err := p.TryRemoveLock()
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, store.ErrBusy) || !wait {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// removePod removes a terminal pod under the exclusive reader lock. With wait it waits for
// readers to finish; without (gc) a pod being read is skipped and store.ErrBusy returned.
func (f *rtFlags) removePod(ctx context.Context, s *store.Store, p *store.Pod, wait bool) error {
	lock, err := removalLock(ctx, p, wait)
	if err != nil {
		return err
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
		return errf(runtimev1.CodeFailed, "remove pod %s: %v", p.Name, err)
	}
	if err := p.Remove(); err != nil {
		return err
	}
	// Only once the pod is gone: a crash in between leaks a reference (the volume is kept),
	// never deletes a volume a pod still declares (VOL-011, VOL-012, VOL-013).
	if _, err := s.ReleaseSharedVolumes(info.UID, st.Pod.Spec.Volumes); err != nil {
		return errf(runtimev1.CodeFailed, "remove pod %s: %v", p.Name, err)
	}
	return nil
}
