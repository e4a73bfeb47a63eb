package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/mutant"
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

// RunnerAlive reports whether a live runner holds the Notification in dir.
func RunnerAlive(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, RunnerLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return errors.Is(err, unix.EWOULDBLOCK)
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// Run runs the fan-out until a PreExistingPods Notification is final, the Notification is
// deleted, or ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	logf := r.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	poll, scan := r.Poll, r.Scan
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	if scan <= 0 {
		scan = 250 * time.Millisecond
	}
	dir := r.Store.Path(r.Name)
	lf, err := os.OpenFile(filepath.Join(dir, RunnerLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("runner of %s: %w", r.Name, err)
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return ErrRunnerBusy
		}
		return fmt.Errorf("runner of %s: %w", r.Name, err)
	}
	obj, err := ReadObject(dir)
	if err != nil {
		return err
	}
	spec := obj.Notification.Spec
	st := obj.Notification.Status
	if st == nil {
		st = &v1alpha1.NotificationStatus{}
	}
	if Final(st.Phase) {
		return nil
	}
	recs, err := Records(dir)
	if err != nil {
		return err
	}
	var todo, inflight []*target
	all := map[string]*target{}  // by record file name
	decided := map[string]bool{} // pod UIDs decided (AllPods)
	for _, rec := range recs {
		t := &target{pod: rec.Pod, uid: rec.PodUID, phase: rec.Phase}
		all[RecordPath(dir, rec.Pod, rec.PodUID)] = t
		decided[rec.PodUID] = true
		if pi, err := ReadPod(r.Pods, rec.Pod); err == nil && pi.UID == rec.PodUID {
			t.createdAt = pi.CreatedAt
			t.atCreation = pi.CreatedAt.After(obj.CreatedAt)
		}
		switch rec.Phase {
		case v1alpha1.NotificationPending:
			todo = append(todo, t)
		case v1alpha1.NotificationRunning:
			inflight = append(inflight, t)
		}
	}
	if spec.TargetPolicy == v1alpha1.AllPods {
		// Pods that existed at creation were decided then.
		if pods, err := ListPods(r.Pods); err == nil {
			for _, p := range pods {
				if !p.CreatedAt.After(obj.CreatedAt) {
					decided[p.UID] = true
				}
			}
		}
	}
	sortTargets(todo)

	par := 0
	if spec.Parallelism != nil {
		par = int(*spec.Parallelism)
	}
	if mutant.NotifyParallelismExceeded && par != 0 {
		logf("podspec mutant build: parallelism exceeded by one")
		par++
	}
	st.Phase = v1alpha1.NotificationRunning
	written := ""
	// A full disk does not end the runner: the status is written again at the next poll (the
	// final one until it is written), since it is recomputed from the records each time.
	full := false
	noRoom := func(err error) bool {
		if !store.IsNoSpace(err) {
			return false
		}
		if !full {
			logf("write the status: %v; trying again at each poll", err)
		}
		full = true
		return true
	}
	writeStatus := func() error {
		st.Targets, st.Pending, st.Running, st.Succeeded, st.Failed, st.Skipped = int32(len(all)), 0, 0, 0, 0, 0
		if mutant.TargetsWithoutNotFound {
			st.Targets = mutantExistingTargets(all)
		}
		for _, t := range all {
			countPhase(st, t.phase, 1)
		}
		b, _ := json.Marshal(st)
		if string(b) == written {
			return nil
		}
		if err := WriteStatus(dir, obj.UID, st); err != nil {
			return err
		}
		written = string(b)
		return nil
	}
	finalise := func(rec *v1alpha1.PodNotificationRecord, t *target) {
		t.phase = rec.Phase
		addFailures(st, rec)
	}
	if err := writeStatus(); err != nil {
		return err
	}
	lastScan := time.Time{}
	for {
		if o, err := ReadObject(dir); err != nil || o.UID != obj.UID {
			logf("notification %s was deleted; the runner stops", r.Name)
			return nil
		}
		// AllPods: pods created after the Notification are decided once, at first sight.
		if spec.TargetPolicy == v1alpha1.AllPods && time.Since(lastScan) >= scan {
			lastScan = time.Now()
			pods, err := ListPods(r.Pods)
			if err != nil {
				logf("list pods: %v", err)
			}
			sort.Slice(pods, func(i, j int) bool { return pods[i].CreatedAt.Before(pods[j].CreatedAt) })
			for _, p := range pods {
				if decided[p.UID] || p.UID == "" {
					continue
				}
				decided[p.UID] = true
				if !TargetsLater(obj, p) {
					continue
				}
				rec := &v1alpha1.PodNotificationRecord{Notification: r.Name, Pod: p.Name, PodUID: p.UID,
					Phase: v1alpha1.NotificationPending, Containers: []v1alpha1.ContainerDelivery{}}
				path := RecordPath(dir, p.Name, p.UID)
				if err := WriteRecord(path, rec); err != nil {
					return err
				}
				t := &target{pod: p.Name, uid: p.UID, createdAt: p.CreatedAt, atCreation: true, phase: rec.Phase}
				all[path] = t
				todo = append(todo, t)
			}
		}
		// Follow the pods whose turn came.
		var finished []*v1alpha1.PodNotificationRecord
		fin := map[*v1alpha1.PodNotificationRecord]*target{}
		keep := inflight[:0]
		for _, t := range inflight {
			rec, err := ReadRecord(RecordPath(dir, t.pod, t.uid))
			if err != nil {
				keep = append(keep, t)
				continue
			}
			t.phase = rec.Phase
			if Final(rec.Phase) {
				finished = append(finished, rec)
				fin[rec] = t
				continue
			}
			if pi, err := ReadPod(r.Pods, t.pod); (err != nil || pi.UID != t.uid) && time.Since(nonZero(rec.StartedAt)) > 5*time.Second {
				// The pod was removed under a delivery and its supervisor never finished
				// the record: the pod ended (NTF-013, NOTIF-009).
				finishLost(rec)
				if err := WriteRecord(RecordPath(dir, t.pod, t.uid), rec); err == nil {
					finished = append(finished, rec)
					fin[rec] = t
					continue
				}
			}
			keep = append(keep, t)
		}
		inflight = keep
		sort.SliceStable(finished, func(i, j int) bool {
			return nonZero(finished[i].FinishedAt).Before(nonZero(finished[j].FinishedAt))
		})
		for _, rec := range finished {
			finalise(rec, fin[rec])
		}
		// Start turns, in pod creation order, within the parallelism limit: pick the pods
		// whose turn comes now, hand the turns to their supervisors (handOut at a time), then
		// follow them. A pod whose supervisor cannot take its turn now is tried again later;
		// the next pods go ahead.
		sortTargets(todo)
		rest := make([]*target, 0, len(todo))
		var batch []*target
		for i, t := range todo {
			if par != 0 && len(inflight)+len(batch) >= par {
				rest = append(rest, todo[i:]...)
				break
			}
			if time.Now().Before(t.retryAt) {
				rest = append(rest, t)
				continue
			}
			pi, perr := ReadPod(r.Pods, t.pod)
			if perr != nil || pi.UID != t.uid || pi.Terminal {
				now := time.Now().UTC()
				rec := &v1alpha1.PodNotificationRecord{Notification: r.Name, Pod: t.pod, PodUID: t.uid, Phase: v1alpha1.NotificationSkipped,
					Reason: v1alpha1.ReasonPodTerminated, Containers: []v1alpha1.ContainerDelivery{}, StartedAt: &now, FinishedAt: &now}
				if mutant.RemovedTargetNotFound && (perr != nil || pi.UID != t.uid) {
					logf("podspec mutant build: a removed target is PodNotFound")
					rec.Reason = v1alpha1.ReasonPodNotFound
				}
				if err := WriteRecord(RecordPath(dir, t.pod, t.uid), rec); err != nil {
					return err
				}
				finalise(rec, t)
				continue
			}
			batch = append(batch, t)
		}
		errs := make([]error, len(batch))
		var wg sync.WaitGroup
		sem := make(chan struct{}, handOut)
		for i, t := range batch {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				p, err := r.Pods.Pod(t.pod)
				if err == nil {
					err = r.Deliver(ctx, p, &DeliverRequest{Name: r.Name, UID: obj.UID, Seq: obj.Seq, Notifier: spec.Notifier,
						Dir: dir, PodUID: t.uid, AtCreation: t.atCreation})
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, t := range batch {
			if err := errs[i]; err != nil {
				// The supervisor could not take the turn (it may have finished the pod just
				// now): try again later; a pod that is terminal by then is skipped.
				logf("deliver to %s: %v", t.pod, err)
				t.retryAt = time.Now().Add(500 * time.Millisecond)
				rest = append(rest, t)
				continue
			}
			rec, err := ReadRecord(RecordPath(dir, t.pod, t.uid))
			if err == nil {
				t.phase = rec.Phase
				if Final(rec.Phase) {
					finalise(rec, t)
					continue
				}
			} else {
				t.phase = v1alpha1.NotificationRunning
			}
			inflight = append(inflight, t)
		}
		todo = rest
		if spec.TargetPolicy != v1alpha1.AllPods && len(todo) == 0 && len(inflight) == 0 {
			now := time.Now().UTC()
			st.FinishedAt = &now
			st.Phase = v1alpha1.NotificationSkipped
			for _, t := range all {
				if t.phase == v1alpha1.NotificationFailed {
					st.Phase = v1alpha1.NotificationFailed
					break
				}
				if t.phase == v1alpha1.NotificationSucceeded {
					st.Phase = v1alpha1.NotificationSucceeded
				}
			}
			for {
				err := writeStatus()
				if err == nil || !noRoom(err) {
					return err
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(poll):
				}
			}
		}
		if err := writeStatus(); err != nil && !noRoom(err) {
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
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
