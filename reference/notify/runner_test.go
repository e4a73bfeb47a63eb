package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
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

// A turn is taken in, and the next one handed out, when the target's supervisor writes its pod
// record, not at the runner's next poll (issue 31: with parallelism p, a poll per round made a
// signal Notification to N pods wait N/p polls, 1.55x the by-hand fan-out at 1,000 pods). The
// fake supervisor does what a real one does: the record is Running when the turn is taken,
// final a moment later. With a 2 s poll, 12 pods at parallelism 2 took at least 6 polls (12 s).
func TestTurnsFollowTheRecordsNotThePoll(t *testing.T) {
	pods, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if _, err := pods.CreatePod(&v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: fmt.Sprintf("p%02d", i), Labels: map[string]string{"role": "target"}}}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	ns, err := Open(pods.Root)
	if err != nil {
		t.Fatal(err)
	}
	par := int32(2)
	if _, err := ns.Create(&v1alpha1.Notification{Metadata: v1alpha1.ObjectMeta{Name: "n"}, Spec: v1alpha1.NotificationSpec{
		Notifier: "hup", TargetPolicy: v1alpha1.PreExistingPods, Parallelism: &par,
		Selector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"role": "target"}},
	}}, pods); err != nil {
		t.Fatal(err)
	}
	const poll = 2 * time.Second
	var running atomic.Int32
	var wg sync.WaitGroup
	defer wg.Wait()
	r := &Runner{Store: ns, Pods: pods, Name: "n", Poll: poll,
		Deliver: func(ctx context.Context, p *store.Pod, req *DeliverRequest) error {
			if n := running.Add(1); n > par {
				t.Errorf("%d turns at once, parallelism %d", n, par)
			}
			path := RecordPath(req.Dir, p.Name, req.PodUID)
			rec, err := ReadRecord(path)
			if err != nil {
				return err
			}
			now := time.Now().UTC()
			rec.Phase, rec.StartedAt = v1alpha1.NotificationRunning, &now
			rec.Containers = []v1alpha1.ContainerDelivery{{Name: "app", Phase: v1alpha1.NotificationRunning, StartedAt: &now}}
			if err := WriteRecord(path, rec); err != nil {
				return err
			}
			wg.Add(1)
			go func() { // the delivery itself, after the supervisor answered
				defer wg.Done()
				time.Sleep(5 * time.Millisecond)
				end := time.Now().UTC()
				rec.Containers[0].Phase, rec.Containers[0].FinishedAt = v1alpha1.NotificationSucceeded, &end
				rec.Phase, rec.FinishedAt = v1alpha1.NotificationSucceeded, &end
				running.Add(-1)
				if err := WriteRecord(path, rec); err != nil {
					t.Error(err)
				}
			}()
			return nil
		}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	o, err := ns.Get("n")
	if err != nil {
		t.Fatal(err)
	}
	if st := o.Notification.Status; st.Phase != v1alpha1.NotificationSucceeded || st.Succeeded != 12 {
		t.Fatalf("status %s with %d of 12 succeeded", st.Phase, st.Succeeded)
	}
	if took >= 2*poll {
		t.Errorf("12 turns at parallelism 2 took %s: the runner waited for its %s poll rather than for the records", took, poll)
	}
}
