package store

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/internal/procstat"
)

// TestGC005_AReaderArrivingDuringRemovalFindsNoPod injects a reader in the middle of a
// removal (RemoveHook, after the pod directory is renamed away): its ReadLock is ErrNotFound
// and creates nothing, so it cannot lock a half-deleted pod, and the removal leaves nothing.
// Deleting in place let such a reader create pod.lock again, lock it and make rmdir fail
// ("directory not empty"), which the GC-005 conformance spec caught on CI.
func TestGC005_AReaderArrivingDuringRemovalFindsNoPod(t *testing.T) {
	s, p := newPod(t)
	if r, err := p.ReadLock(); err != nil { // pod.lock exists, as after any read
		t.Fatal(err)
	} else {
		r.Unlock()
	}
	rm, err := p.TryRemoveLock()
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Unlock()
	// A reader that opened pod.lock before the removal waits on it meanwhile.
	waiter := make(chan error, 1)
	go func() {
		l, err := p.ReadLock()
		if err == nil {
			l.Unlock()
		}
		waiter <- err
	}()
	waitBlockedOn(t, p.Path(ReaderLock))
	var during error
	var leftDuring bool
	RemoveHook = func(string) {
		l, err := p.ReadLock()
		if err == nil {
			l.Unlock()
		}
		during = err
		_, err = os.Lstat(p.Dir)
		leftDuring = err == nil
	}
	defer func() { RemoveHook = nil }()
	if err := p.Remove(); err != nil {
		t.Fatalf("Remove with a reader arriving during it: %v", err)
	}
	if !errors.Is(during, ErrNotFound) {
		t.Errorf("ReadLock during the removal: %v, want ErrNotFound", during)
	}
	if leftDuring {
		t.Errorf("the reader during the removal created %s again", p.Dir)
	}
	rm.Unlock()
	if err := <-waiter; !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadLock of a reader that waited through the removal: %v, want ErrNotFound (a lock on the removed pod's file guards nothing)", err)
	}
	ents, err := os.ReadDir(filepath.Join(s.Root, "pods"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in pods/ after the removal: %s", e.Name())
	}
	if _, err := s.Pod(p.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("Pod after removal: %v, want ErrNotFound", err)
	}
}

// TestAWaiterLocksAPodCreatedAgainUnderTheSameName: a reader that waited through a removal
// while a pod of the same name was created locks the new pod's file, not the removed one's.
func TestAWaiterLocksAPodCreatedAgainUnderTheSameName(t *testing.T) {
	s, p := newPod(t)
	rm, err := p.TryRemoveLock()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		l   *Lock
		err error
	}
	waiter := make(chan result, 1)
	go func() {
		l, err := p.ReadLock()
		waiter <- result{l, err}
	}()
	waitBlockedOn(t, p.Path(ReaderLock)) // it opened the old pod.lock; started later, it would find no pod
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	again, err := s.CreatePod(testPodObject(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rm.Unlock()
	r := <-waiter
	if r.err != nil {
		t.Fatalf("ReadLock of the waiter: %v, want the new pod's lock", r.err)
	}
	defer r.l.Unlock()
	if _, err := again.TryRemoveLock(); !errors.Is(err, ErrBusy) {
		t.Errorf("remove lock of the new pod while the waiter holds its read lock: %v, want ErrBusy", err)
	}
}

// TestARemovalCutShortIsSweptAndNeverListed: a removal cut short after the rename leaves a
// .removing- directory; no verb lists it, the next CreatePod leaves it to a remover that is
// still at work (this process) and deletes it once that process has ended.
func TestARemovalCutShortIsSweptAndNeverListed(t *testing.T) {
	s, p := newPod(t)
	RemoveHook = func(removing string) { panic(removing) }
	var removing string
	func() {
		defer func() { removing, _ = recover().(string); RemoveHook = nil }()
		p.Remove()
	}()
	if removing == "" {
		t.Fatal("RemoveHook was not called")
	}
	if _, err := os.Stat(filepath.Join(removing, StateFile)); err != nil {
		t.Fatalf("the cut-short removal left no directory to sweep: %v", err)
	}
	if names, err := s.List(); err != nil || len(names) != 0 {
		t.Errorf("List after a cut-short removal: %v %v, want none", names, err)
	}
	if _, err := s.Pod(p.Name); !errors.Is(err, ErrNotFound) {
		t.Errorf("Pod after a cut-short removal: %v, want ErrNotFound", err)
	}
	if _, err := s.CreatePod(testPodObject(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(removing); err != nil {
		t.Fatalf("CreatePod swept the removal of a process still at work (this one): %v", err)
	}
	// The same leftover, as a process that has ended would have left it.
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	_, _, rest, ok := parseWorkName(strings.TrimPrefix(filepath.Base(removing), removingPrefix))
	if !ok {
		t.Fatalf("%s is not a work name", removing)
	}
	orphan := filepath.Join(filepath.Dir(removing), fmt.Sprintf("%s%d-1-%s", removingPrefix, ended.Process.Pid, rest))
	if err := os.Rename(removing, orphan); err != nil {
		t.Fatal(err)
	}
	s.sweepCreating()
	if _, err := os.Lstat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sweep left %s, the removal of a process that has ended: %v", orphan, err)
	}
}

func TestParseWorkName(t *testing.T) {
	name := strings.TrimPrefix(workName(creatingPrefix, "web-1"), creatingPrefix)
	pid, start, rest, ok := parseWorkName(name)
	if !ok || pid != os.Getpid() || start != procstat.StartTime(os.Getpid()) || rest != "web-1" {
		t.Errorf("parseWorkName(%q) = %d, %d, %q, %v; want this process and web-1", name, pid, start, rest, ok)
	}
	for _, bad := range []string{"", "12", "12-34", "x-34-web", "12-y-web", "12--web"} {
		if _, _, _, ok := parseWorkName(bad); ok {
			t.Errorf("parseWorkName(%q) succeeded", bad)
		}
	}
}

// waitBlockedOn waits until a flock request on the file at path is blocked: /proc/locks lists a
// blocked request as "N: -> FLOCK …" with the file's device and inode (MAJ:MIN:INODE).
func waitBlockedOn(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	inode := fmt.Sprintf(":%d ", fi.Sys().(*syscall.Stat_t).Ino)
	for deadline := time.Now().Add(time.Minute); ; {
		b, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "-> FLOCK") && strings.Contains(line, inode) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no flock request on %s was blocked within a minute:\n%s", path, b)
		}
		time.Sleep(time.Millisecond)
	}
}
