package notify

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"podspec.dev/podspec/reference/store"
)

// runnerFor makes the directory of a Notification n and a Runner for it.
func runnerFor(t *testing.T) *Runner {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.Path("n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return &Runner{Store: s, Name: "n"}
}

// The interleaving of certify-loop run 11 (NOTIF-006): `notify` checks that the runner it
// spawned is alive while the runner takes its lock. The runner must get its lock, and the check
// must not call the Notification runnerless afterwards.
func TestARunnerStartingDuringALivenessCheckTakesItsLock(t *testing.T) {
	r := runnerFor(t)
	dir := r.Store.Path(r.Name)
	var (
		lock    *store.Lock
		lockErr error
		calls   int
	)
	store.LiveLockHook = func(path string) {
		if path != filepath.Join(dir, RunnerLock) {
			t.Errorf("the check looked at %s", path)
		}
		calls++
		if calls == 1 {
			lock, lockErr = r.lock() // the runner starts in the middle of the check
		}
	}
	t.Cleanup(func() { store.LiveLockHook = nil })
	if err := os.WriteFile(filepath.Join(dir, RunnerLock), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	alive := RunnerAlive(dir)
	if lockErr != nil {
		t.Fatalf("a runner starting during a liveness check did not get its lock: %v", lockErr)
	}
	if calls != 1 {
		t.Fatalf("the liveness check ran its probe %d times", calls)
	}
	if !alive || !RunnerAlive(dir) {
		t.Fatal("the liveness check does not see the runner that holds the lock")
	}
	if _, err := r.lock(); !errors.Is(err, ErrRunnerBusy) {
		t.Fatalf("a second runner got the lock: %v", err)
	}
	lock.Unlock()
	if RunnerAlive(dir) {
		t.Fatal("a runner that released its lock is still alive")
	}
}

// The same without a hook: liveness checks in a tight loop, as `notify` and `notification
// status` run them, never make a starting runner give up.
func TestLivenessChecksNeverMakeARunnerGiveUp(t *testing.T) {
	r := runnerFor(t)
	dir := r.Store.Path(r.Name)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				RunnerAlive(dir)
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	for i := range 2000 {
		l, err := r.lock()
		if err != nil {
			t.Fatalf("attempt %d: a runner gave up while nothing but liveness checks ran: %v", i, err)
		}
		l.Unlock()
	}
}
