//go:build linux

package main

// Shared plumbing of the runtime verbs (run, list, status, events, logs, wait, stop, rm, gc,
// version, supervise): the state root and supervisors, and the codes of the reference
// runtime's errors (flags.go has what every verb shares).

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/reference/supervisor"
)

// DefaultRoot is the state directory when neither --root nor PODSPEC_ROOT is given.
const defaultRoot = "/var/lib/podspec"

// addStateFlags declares --root and --oci-runtime, with their environment defaults.
func addStateFlags(cmd *cobra.Command, f *rtFlags) {
	root := os.Getenv("PODSPEC_ROOT")
	if root == "" {
		root = defaultRoot
	}
	rt := os.Getenv("PODSPEC_OCI_RUNTIME")
	if rt == "" {
		rt = oci.DefaultBinary
	}
	cmd.Flags().StringVar(&f.root, "root", root, "state directory (env PODSPEC_ROOT)")
	cmd.Flags().StringVar(&f.ociRuntime, "oci-runtime", rt, "OCI runtime binary (env PODSPEC_OCI_RUNTIME)")
}

// runtimeErrorCode is the contract's code of the reference runtime's errors (classify).
func runtimeErrorCode(err error) (runtimev1.ErrorCode, bool) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return runtimev1.CodeNotFound, true
	case errors.Is(err, store.ErrExists), errors.Is(err, store.ErrBusy):
		return runtimev1.CodeConflict, true
	case errors.Is(err, oci.ErrUnavailable):
		return runtimev1.CodeRuntimeUnavailable, true
	case store.IsNoSpace(err), errors.Is(err, store.ErrUnreadable):
		return runtimev1.CodeIO, true
	}
	return "", false
}

// failedOrIO is the code of an operation that failed: IO when the state directory had no room
// for it (a full disk, a quota), else Failed.
func failedOrIO(err error) runtimev1.ErrorCode {
	if store.IsNoSpace(err) {
		return runtimev1.CodeIO
	}
	return runtimev1.CodeFailed
}

func (f *rtFlags) store() (*store.Store, error) {
	s, err := store.Open(f.root)
	if errors.Is(err, store.ErrUntrusted) {
		return nil, &rtError{code: runtimev1.CodeFailed, err: err} // SUP-011: refused, not an I/O fault
	}
	if err != nil {
		return nil, &rtError{code: runtimev1.CodeIO, err: err}
	}
	return s, nil
}

// pod opens an existing pod and holds its reader lock (so gc leaves it alone) until release.
// A pod whose state cannot be read is an IO error that says how to get rid of it.
func (f *rtFlags) pod(name string) (*store.Pod, func(), error) {
	p, release, err := f.podMaybeUnreadable(name)
	if err != nil {
		return nil, nil, err
	}
	if _, err := p.ReadState(); err != nil {
		release()
		return nil, nil, unreadable(p, err)
	}
	return p, release, nil
}

// unreadable is the error for a pod whose state cannot be read (store.ErrUnreadable).
func unreadable(p *store.Pod, err error) error {
	return errf(runtimev1.CodeIO, "%v: the pod cannot be shown or adopted; `podspec stop %s` and `podspec rm --force %s` still work", err, p.Name, p.Name)
}

// podNotFound is the NotFound error of a verb naming pod name.
func podNotFound(name string) error {
	return &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("pod %q not found", name)}
}

// podMaybeUnreadable is pod for the verbs that also handle a pod whose state cannot be read
// (list, stop, rm): only a pod without a state file is NotFound.
func (f *rtFlags) podMaybeUnreadable(name string) (*store.Pod, func(), error) {
	s, err := f.store()
	if err != nil {
		return nil, nil, err
	}
	return podIn(s, name)
}

// podIn is podMaybeUnreadable in a store already open (list opens it once for every pod).
func podIn(s *store.Store, name string) (*store.Pod, func(), error) {
	if err := store.ValidName(name); err != nil {
		return nil, nil, podNotFound(name)
	}
	p, err := s.Pod(name)
	if err != nil {
		return nil, nil, podNotFound(name)
	}
	l, err := p.ReadLock()
	if errors.Is(err, store.ErrNotFound) {
		// removed since s.Pod found it (GC-005, GC-007)
		return nil, nil, podNotFound(name)
	}
	if err != nil {
		return nil, nil, &rtError{code: runtimev1.CodeIO, err: err}
	}
	if p.Gone() {
		l.Unlock()
		return nil, nil, podNotFound(name)
	}
	return p, l.Unlock, nil
}

// warnUnpersisted tells on stderr that the pod's supervisor cannot write its state or events
// (a full disk): what the verb prints from them may be behind the pod, which the supervisor
// runs on from memory.
func warnUnpersisted(p *store.Pod) {
	if pf := p.PersistError(); pf != nil {
		fmt.Fprintf(os.Stderr, "podspec: warning: the supervisor of %s cannot write the pod's state and events since %s (%s): they may be behind the pod, and are written once there is room\n",
			p.Name, pf.Since.Format(time.RFC3339), pf.Error)
	}
}

// superviseArgv is the command line that starts a supervisor for pod name, driving the OCI
// runtime ociRuntime (a name to look up, or the path run resolved): the
// podspec-supervisor binary of this build when there is one (supervisorBinary), else this
// binary's hidden supervise verb. Both take the same arguments.
func (f *rtFlags) superviseArgv(name, ociRuntime string) ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the podspec binary: %w", err)
	}
	root, err := f.absRoot()
	if err != nil {
		return nil, err
	}
	return []string{supervisorBinary(self), "supervise", "--root", root, "--oci-runtime", ociRuntime, name}, nil
}

// absRoot is the state root as an absolute path, for the processes podspec starts: they run in
// "/", where a relative --root would name another directory.
func (f *rtFlags) absRoot() (string, error) {
	root, err := filepath.Abs(f.root)
	if err != nil {
		return "", &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("state root %s: %w", f.root, err)}
	}
	return root, nil
}

// supervisorBinary returns SELF-supervisor (bin/podspec-supervisor beside bin/podspec) when
// that file is a binary of the same build as this one, else self. A supervisor lives as long
// as its pod, and the small binary starts faster and maps a fraction of the pages (it links
// no validator and no conformance suite). "Same build" means the same Go version, module,
// dependency versions and build settings (build tags included; a mutant build, made with
// go build -overlay, changes none of them, so docs/mutants.md builds it to a path with no
// supervisor beside it); and, when the build is not from a clean VCS checkout
// (where the revision already tells builds apart), a supervisor written at most a minute
// before this binary: one left over from an earlier build is not used.
func supervisorBinary(self string) string {
	sib := self + "-supervisor"
	selfInfo, err1 := os.Stat(self)
	sibInfo, err2 := os.Stat(sib)
	if err1 != nil || err2 != nil || !sibInfo.Mode().IsRegular() || sibInfo.Mode().Perm()&0o111 == 0 {
		return self
	}
	mine, ok := debug.ReadBuildInfo()
	if !ok {
		return self
	}
	theirs, err := buildinfo.ReadFile(sib)
	if err != nil || !sameBuild(mine, theirs) {
		return self
	}
	if buildSetting(mine, "vcs.modified") != "false" && sibInfo.ModTime().Before(selfInfo.ModTime().Add(-time.Minute)) {
		return self
	}
	return sib
}

// sameBuild reports whether two binaries of this module were built from the same sources and
// settings as far as their build information tells: Go version, main module, the versions of
// every dependency the supervisor links, and every build setting.
func sameBuild(a, b *debug.BuildInfo) bool {
	if a.GoVersion != b.GoVersion || a.Main.Path != b.Main.Path || a.Main.Version != b.Main.Version || a.Main.Sum != b.Main.Sum || len(a.Settings) != len(b.Settings) {
		return false
	}
	deps := map[string]debug.Module{}
	for _, d := range a.Deps {
		deps[d.Path] = *d
	}
	for _, d := range b.Deps {
		if m, ok := deps[d.Path]; !ok || m.Version != d.Version || m.Sum != d.Sum || (m.Replace == nil) != (d.Replace == nil) ||
			m.Replace != nil && (m.Replace.Path != d.Replace.Path || m.Replace.Version != d.Replace.Version) {
			return false
		}
	}
	for _, s := range b.Settings {
		if buildSetting(a, s.Key) != s.Value {
			return false
		}
	}
	return true
}

func buildSetting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// ensureSupervisor restarts a dead supervisor of a pod that is not terminal (adoption), and
// appends the last events a lost supervisor of a terminal pod left only in its state.
func (f *rtFlags) ensureSupervisor(ctx context.Context, p *store.Pod) error {
	started, recovered, err := supervisor.Ensure(ctx, p, func() ([]string, error) { return f.superviseArgv(p.Name, f.ociRuntime) })
	if errors.Is(err, supervisor.ErrEventsNotRecovered) {
		// The pod is terminal and its state keeps the events: the verb goes on, the next retries.
		fmt.Fprintf(os.Stderr, "podspec: warning: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	if started {
		fmt.Fprintf(os.Stderr, "podspec: the supervisor of %s had died; a new one adopted the pod\n", p.Name)
	}
	if recovered > 0 {
		fmt.Fprintf(os.Stderr, "podspec: wrote %d event(s) that the lost supervisor of %s had recorded only in its state\n", recovered, p.Name)
	}
	return nil
}

// ociRuntimePath resolves the OCI runtime binary; RuntimeUnavailable when it is missing.
func (f *rtFlags) ociRuntimePath() (string, error) {
	p, err := exec.LookPath(f.ociRuntime)
	if err != nil {
		return "", &rtError{code: runtimev1.CodeRuntimeUnavailable, err: fmt.Errorf("OCI runtime %q: %w", f.ociRuntime, err)}
	}
	return p, nil
}
