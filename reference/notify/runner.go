package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/dirwatch"
	"podspec.dev/podspec/reference/store"
)

// DeliverRequest is what a runner sends a target pod's supervisor when the pod's turn comes.
// It names a Notification and the notifier, never a command (NTF-004): the supervisor runs
// only what the pod declared under that name.
type DeliverRequest struct {
	// Name, UID and Seq identify the Notification; Seq orders it among Notifications (HB-017).
	Name string `json:"name"`
	UID  string `json:"uid"`
	Seq  int64  `json:"seq"`
	// Notifier is spec.notifier.
	Notifier string `json:"notifier"`
	// Dir is the Notification's directory; the supervisor writes the pod record there.
	Dir string `json:"dir"`
	// PodUID is the target pod's UID; a pod with another UID is not the target.
	PodUID string `json:"podUID"`
	// AtCreation is set for a pod targeted at its own creation (AllPods): each declaring
	// container gets its delivery when it first becomes eligible (NOTIF-012) instead of being
	// skipped as NotEligible.
	AtCreation bool `json:"atCreation,omitempty"`
}

// Runner is the fan-out of one Notification: it takes the target pods in creation order
// (NOTIF-007), at most spec.parallelism at once (NOTIF-006), hands each pod's turn to the pod's
// supervisor, follows the pod records until they are final, and keeps the bounded status. For
// AllPods it keeps looking for new matching pods (polling the pod list) until the Notification
// is deleted. It stops starting turns as soon as the Notification is deleted (NOTIF-020).
type Runner struct {
	Store *Store
	Pods  *store.Store
	Name  string
	// Deliver sends the turn of a pod to its supervisor; the supervisor has written the pod
	// record (Running or final) when it returns nil.
	Deliver func(ctx context.Context, pod *store.Pod, req *DeliverRequest) error
	// Poll is how often records are read (default 50 ms); Scan is how often the pod list is
	// read for pods created later (AllPods; default 250 ms).
	Poll, Scan time.Duration
	Logf       func(format string, args ...any)
}

// handOut bounds how many turns a runner hands to supervisors at the same time.
const handOut = 8

// ErrRunnerBusy is returned by Run when another runner holds the Notification.
var ErrRunnerBusy = errors.New("the notification already has a live runner")

// target is one pod record the runner follows.
type target struct {
	pod, uid   string
	createdAt  time.Time
	atCreation bool
	phase      v1alpha1.NotificationPhase
	// retryAt delays the next attempt at a turn the supervisor could not take.
	retryAt time.Time
}

// RunnerAlive reports whether a live runner holds the Notification in dir. It only queries
// the runner lock (store.LiveLockHeld), never takes it: `notify` checks right after spawning the
// runner, while the runner takes its lock, and a check that took the lock for an instant made a
// runner starting at that instant give up as busy, leaving the Notification without a runner
// (no delivery ever started, NOTIF-006 in certify-loop run 11).
func RunnerAlive(dir string) bool { return store.LiveLockHeld(filepath.Join(dir, RunnerLock)) }

// Run runs the fan-out until a PreExistingPods Notification is final, the Notification is
// deleted, or ctx ends. Each round of its loop: stop if the Notification is gone, decide the
// pods created since the last round (AllPods), follow the turns in flight, start the turns that
// are due, and write the status (the final one when nothing is left).
func (r *Runner) Run(ctx context.Context) error {
	lf, err := r.lock()
	if err != nil {
		return err
	}
	defer lf.Unlock()
	f, err := r.load()
	if err != nil || f == nil {
		return err
	}
	wake, stop := watchRecords(f.dir)
	defer stop()
	f.wake = wake
	if err := f.writeStatus(); err != nil {
		return err
	}
	for {
		if f.deleted() {
			f.logf("notification %s was deleted; the runner stops", r.Name)
			return nil
		}
		if err := f.scanNewPods(); err != nil {
			return err
		}
		f.followInflight()
		batch, rest, err := f.dueTurns()
		if err != nil {
			return err
		}
		errs := f.handOutTurns(ctx, batch)
		f.todo = append(rest, f.recordHandOuts(batch, errs)...)
		if f.done() {
			return f.finish(ctx)
		}
		if err := f.writeStatus(); err != nil && !f.noRoom(err) {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		if err := f.wait(ctx); err != nil {
			return err
		}
	}
}

// fanOut is the state of one Run: the Notification, the pod records it follows and the status
// it keeps.
type fanOut struct {
	r          *Runner
	dir        string
	obj        *Object
	spec       v1alpha1.NotificationSpec
	st         *v1alpha1.NotificationStatus
	poll, scan time.Duration
	logf       func(format string, args ...any)
	// par is spec.parallelism (0: no limit).
	par int
	// todo are the targets whose turn has not been handed out, inflight those whose records
	// are followed until final; all holds every target by record file name.
	todo, inflight []*target
	all            map[string]*target
	// decided are the pod UIDs already decided (AllPods): targeted or not.
	decided  map[string]bool
	lastScan time.Time
	// written is the status last written; full is set while the disk is full.
	written string
	full    bool
	// wake receives when a pod record was written (watchRecords); nil: the poll alone.
	wake <-chan struct{}
}

// lock takes the Notification's runner lock (store.TryLiveLock), or fails with ErrRunnerBusy
// when another runner holds it; unlocking releases it.
func (r *Runner) lock() (*store.Lock, error) {
	l, err := store.TryLiveLock(filepath.Join(r.Store.Path(r.Name), RunnerLock))
	if errors.Is(err, store.ErrBusy) {
		return nil, ErrRunnerBusy
	}
	if err != nil {
		return nil, fmt.Errorf("runner of %s: %w", r.Name, err)
	}
	return l, nil
}

// load reads the Notification and its pod records into a fan-out, with the defaults of Poll,
// Scan and Logf; it returns nil (and no error) for a Notification that is already final.
func (r *Runner) load() (*fanOut, error) {
	f := &fanOut{r: r, dir: r.Store.Path(r.Name), poll: r.Poll, scan: r.Scan, logf: r.Logf,
		all: map[string]*target{}, decided: map[string]bool{}}
	if f.logf == nil {
		f.logf = func(string, ...any) {}
	}
	if f.poll <= 0 {
		f.poll = 50 * time.Millisecond
	}
	if f.scan <= 0 {
		f.scan = 250 * time.Millisecond
	}
	obj, err := ReadObject(f.dir)
	if err != nil {
		return nil, err
	}
	f.obj, f.spec, f.st = obj, obj.Notification.Spec, obj.Notification.Status
	if f.st == nil {
		f.st = &v1alpha1.NotificationStatus{}
	}
	if Final(f.st.Phase) {
		return nil, nil
	}
	if err := f.restoreTargets(); err != nil {
		return nil, err
	}
	if f.spec.Parallelism != nil {
		f.par = int(*f.spec.Parallelism)
	}
	f.st.Phase = v1alpha1.NotificationRunning
	return f, nil
}

// restoreTargets takes up the pod records already written (by this runner's creation or by an
// earlier runner): pending ones wait for their turn, running ones are followed.
func (f *fanOut) restoreTargets() error {
	recs, err := Records(f.dir)
	if err != nil {
		return err
	}
	for _, rec := range recs {
		t := &target{pod: rec.Pod, uid: rec.PodUID, phase: rec.Phase}
		f.all[RecordPath(f.dir, rec.Pod, rec.PodUID)] = t
		f.decided[rec.PodUID] = true
		if pi, err := ReadPod(f.r.Pods, rec.Pod); err == nil && pi.UID == rec.PodUID {
			t.createdAt = pi.CreatedAt
			t.atCreation = pi.CreatedAt.After(f.obj.CreatedAt)
		}
		switch rec.Phase {
		case v1alpha1.NotificationPending:
			f.todo = append(f.todo, t)
		case v1alpha1.NotificationRunning:
			f.inflight = append(f.inflight, t)
		}
	}
	if f.spec.TargetPolicy == v1alpha1.AllPods {
		// Pods that existed at creation were decided then.
		if pods, err := ListPods(f.r.Pods); err == nil {
			for _, p := range pods {
				if !p.CreatedAt.After(f.obj.CreatedAt) {
					f.decided[p.UID] = true
				}
			}
		}
	}
	sortTargets(f.todo)
	return nil
}

// deleted reports whether the Notification is gone (or replaced by one with another UID).
func (f *fanOut) deleted() bool {
	o, err := ReadObject(f.dir)
	return err != nil || o.UID != f.obj.UID
}

// scanNewPods decides, once and at first sight, the pods created after the Notification
// (AllPods, at most every Scan): a pod it targets gets a Pending record and waits for its turn.
func (f *fanOut) scanNewPods() error {
	if f.spec.TargetPolicy != v1alpha1.AllPods || time.Since(f.lastScan) < f.scan {
		return nil
	}
	f.lastScan = time.Now()
	pods, err := ListPods(f.r.Pods)
	if err != nil {
		f.logf("list pods: %v", err)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].CreatedAt.Before(pods[j].CreatedAt) })
	for _, p := range pods {
		if f.decided[p.UID] || p.UID == "" {
			continue
		}
		later := TargetsLater(f.obj, p)
		f.decided[p.UID] = true
		if !later {
			continue
		}
		rec := &v1alpha1.PodNotificationRecord{Notification: f.r.Name, Pod: p.Name, PodUID: p.UID,
			Phase: v1alpha1.NotificationPending, Containers: []v1alpha1.ContainerDelivery{}}
		path := RecordPath(f.dir, p.Name, p.UID)
		if err := WriteRecord(path, rec); err != nil {
			return err
		}
		t := &target{pod: p.Name, uid: p.UID, createdAt: p.CreatedAt, atCreation: true, phase: rec.Phase}
		f.all[path] = t
		f.todo = append(f.todo, t)
	}
	return nil
}

// followInflight reads the records of the turns in flight and takes in the ones that are final,
// in the order they finished; a record whose pod was removed under it is finished as lost.
func (f *fanOut) followInflight() {
	var finished []*v1alpha1.PodNotificationRecord
	fin := map[*v1alpha1.PodNotificationRecord]*target{}
	keep := f.inflight[:0]
	for _, t := range f.inflight {
		rec, err := ReadRecord(RecordPath(f.dir, t.pod, t.uid))
		if err != nil {
			keep = append(keep, t)
			continue
		}
		t.phase = rec.Phase
		if Final(rec.Phase) || f.finishIfPodLost(t, rec) {
			finished = append(finished, rec)
			fin[rec] = t
			continue
		}
		keep = append(keep, t)
	}
	f.inflight = keep
	sort.SliceStable(finished, func(i, j int) bool {
		return nonZero(finished[i].FinishedAt).Before(nonZero(finished[j].FinishedAt))
	})
	for _, rec := range finished {
		f.finalise(rec, fin[rec])
	}
}

// finishIfPodLost finishes and writes the record of a pod that was removed under a delivery
// (more than 5 s after it started) whose supervisor never finished the record: the pod ended
// (NTF-013, NOTIF-009). It reports whether it did.
func (f *fanOut) finishIfPodLost(t *target, rec *v1alpha1.PodNotificationRecord) bool {
	if pi, err := ReadPod(f.r.Pods, t.pod); (err == nil && pi.UID == t.uid) || time.Since(nonZero(rec.StartedAt)) <= 5*time.Second {
		return false
	}
	finishLost(rec)
	return WriteRecord(RecordPath(f.dir, t.pod, t.uid), rec) == nil
}

// dueTurns picks, in pod creation order and within the parallelism limit, the targets whose
// turn comes now (batch); a target waiting to retry, or beyond the limit, stays (rest). A
// target whose pod is gone or terminal is skipped with a final record.
func (f *fanOut) dueTurns() (batch, rest []*target, err error) {
	sortTargets(f.todo)
	rest = make([]*target, 0, len(f.todo))
	for i, t := range f.todo {
		if f.par != 0 && len(f.inflight)+len(batch) >= f.par {
			rest = append(rest, f.todo[i:]...)
			break
		}
		if time.Now().Before(t.retryAt) {
			rest = append(rest, t)
			continue
		}
		pi, perr := ReadPod(f.r.Pods, t.pod)
		if perr != nil || pi.UID != t.uid || pi.Terminal {
			now := time.Now().UTC()
			rec := &v1alpha1.PodNotificationRecord{Notification: f.r.Name, Pod: t.pod, PodUID: t.uid, Phase: v1alpha1.NotificationSkipped,
				Reason: v1alpha1.ReasonPodTerminated, Containers: []v1alpha1.ContainerDelivery{}, StartedAt: &now, FinishedAt: &now}
			if err := WriteRecord(RecordPath(f.dir, t.pod, t.uid), rec); err != nil {
				return nil, nil, err
			}
			f.finalise(rec, t)
			continue
		}
		batch = append(batch, t)
	}
	return batch, rest, nil
}

// handOutTurns hands each target's turn to its pod's supervisor, handOut at a time, and returns
// each one's error.
func (f *fanOut) handOutTurns(ctx context.Context, batch []*target) []error {
	errs := make([]error, len(batch))
	var wg sync.WaitGroup
	sem := make(chan struct{}, handOut)
	for i, t := range batch {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			p, err := f.r.Pods.Pod(t.pod)
			if err == nil {
				err = f.r.Deliver(ctx, p, &DeliverRequest{Name: f.r.Name, UID: f.obj.UID, Seq: f.obj.Seq, Notifier: f.spec.Notifier,
					Dir: f.dir, PodUID: t.uid, AtCreation: t.atCreation})
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return errs
}

// recordHandOuts takes in the outcome of the handed-out turns: a turn the supervisor took is
// followed (or finalised, when its record is final already); the targets whose supervisor could
// not take the turn are returned, to try again later.
func (f *fanOut) recordHandOuts(batch []*target, errs []error) (retry []*target) {
	for i, t := range batch {
		if err := errs[i]; err != nil {
			// The supervisor could not take the turn (it may have finished the pod just
			// now): try again later; a pod that is terminal by then is skipped.
			f.logf("deliver to %s: %v", t.pod, err)
			t.retryAt = time.Now().Add(500 * time.Millisecond)
			retry = append(retry, t)
			continue
		}
		rec, err := ReadRecord(RecordPath(f.dir, t.pod, t.uid))
		if err == nil {
			t.phase = rec.Phase
			if Final(rec.Phase) {
				f.finalise(rec, t)
				continue
			}
		} else {
			t.phase = v1alpha1.NotificationRunning
		}
		f.inflight = append(f.inflight, t)
	}
	return retry
}

// done reports whether a PreExistingPods Notification has no turn left to start or follow.
func (f *fanOut) done() bool {
	return f.spec.TargetPolicy != v1alpha1.AllPods && len(f.todo) == 0 && len(f.inflight) == 0
}

// finish writes the final status (finalPhase). A full disk does not lose it: it is written
// again at each poll.
func (f *fanOut) finish(ctx context.Context) error {
	now := time.Now().UTC()
	f.st.FinishedAt = &now
	f.st.Phase = f.finalPhase()
	for {
		err := f.writeStatus()
		if err == nil || !f.noRoom(err) {
			return err
		}
		if err := f.wait(ctx); err != nil {
			return err
		}
	}
}

// finalPhase is the phase of a Notification whose pod records are all final: Failed if one
// failed, else Succeeded if one succeeded, else Skipped.
func (f *fanOut) finalPhase() v1alpha1.NotificationPhase {
	ph := v1alpha1.NotificationSkipped
	for _, t := range f.all {
		if t.phase == v1alpha1.NotificationFailed {
			return v1alpha1.NotificationFailed
		}
		if t.phase == v1alpha1.NotificationSucceeded {
			ph = v1alpha1.NotificationSucceeded
		}
	}
	return ph
}

// finalise takes in a final pod record: its target's phase and its failures in the status.
func (f *fanOut) finalise(rec *v1alpha1.PodNotificationRecord, t *target) {
	t.phase = rec.Phase
	addFailures(f.st, rec)
}

// writeStatus writes the status, its counts recomputed from the targets, unless it is the one
// last written.
func (f *fanOut) writeStatus() error {
	st := f.st
	st.Targets, st.Pending, st.Running, st.Succeeded, st.Failed, st.Skipped = int32(len(f.all)), 0, 0, 0, 0, 0
	for _, t := range f.all {
		countPhase(st, t.phase, 1)
	}
	b, _ := json.Marshal(st)
	if string(b) == f.written {
		return nil
	}
	if err := WriteStatus(f.dir, f.obj.UID, st); err != nil {
		return err
	}
	f.written = string(b)
	return nil
}

// noRoom reports whether err is a full disk, which does not end the runner: the status is
// written again at the next poll (the final one until it is written), since it is recomputed
// from the records each time. It logs the first.
func (f *fanOut) noRoom(err error) bool {
	if !store.IsNoSpace(err) {
		return false
	}
	if !f.full {
		f.logf("write the status: %v; trying again at each poll", err)
	}
	f.full = true
	return true
}

// wait waits until a pod record is written, one poll at most, or until ctx ends.
func (f *fanOut) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.wake:
		return nil
	case <-time.After(f.poll):
		return nil
	}
}

// watchRecords returns a channel that receives when a pod record of the Notification in dir is
// written (a supervisor recorded a delivery's progress, always by a rename into place), so that
// the fan-out takes in a finished turn, and hands out the next, as soon as the record says so
// rather than at its next poll: with parallelism p, a poll per round made N pods wait N/p polls
// (issue 31). The poll stays, for what no record announces and for a watch that could not be
// set up (the inotify limits, dirwatch.Changes): then the channel is nil. stop ends the watch.
func watchRecords(dir string) (wake <-chan struct{}, stop func()) {
	wake, stop, _ = dirwatch.Changes(filepath.Join(dir, RecordsDir), func(ev fsnotify.Event) bool {
		return ev.Has(fsnotify.Create) && isRecordFile(filepath.Base(ev.Name))
	})
	return wake, stop
}

// finishLost ends a record whose pod disappeared while deliveries were pending or running.
func finishLost(rec *v1alpha1.PodNotificationRecord) {
	now := time.Now().UTC()
	for i := range rec.Containers {
		d := &rec.Containers[i]
		switch d.Phase {
		case v1alpha1.NotificationPending:
			d.Phase, d.Reason, d.FinishedAt = v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminated, &now
		case v1alpha1.NotificationRunning:
			d.Phase, d.Reason, d.FinishedAt = v1alpha1.NotificationFailed, v1alpha1.ReasonPodTerminated, &now
		}
	}
	rec.Phase = RecordPhase(rec.Containers)
	if len(rec.Containers) == 0 {
		rec.Reason = v1alpha1.ReasonPodTerminated
	}
	rec.FinishedAt = &now
}

func sortTargets(ts []*target) {
	sort.SliceStable(ts, func(i, j int) bool {
		if !ts[i].createdAt.Equal(ts[j].createdAt) {
			return ts[i].createdAt.Before(ts[j].createdAt)
		}
		return ts[i].pod < ts[j].pod
	})
}

func nonZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
