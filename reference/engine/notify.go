package engine

// Notifier deliveries. A Notification's runner hands a target pod's turn to the pod's
// supervisor (supervisor.OpNotify → Engine.Notify); from then on this engine alone decides and
// records the pod's outcome, because it owns the containers:
//
//   - the pod is eligible while neither terminating nor terminal (NOTIF-008, NOTIF-009);
//   - a container is eligible while it is a main container or sidecar that declares the
//     notifier, has a running instance and is Started (NTF-009, NOTIF-010, NOTIF-011); regular
//     init and defer containers are never considered;
//   - each declaring container gets one delivery, run in a goroutine of its own (HB-021),
//     after every earlier-created Notification's delivery of the same notifier to the same
//     container has ended (HB-017, read from the other Notifications' records on disk);
//   - the delivery is persisted Running with the instance's containerID before the action
//     starts (NTF-011), so at most one run per (Notification, instance) (NTF-010); a record
//     found Running after a supervisor loss is Failed: ExitStatusLost, never re-run (NTF-012);
//   - exec actions run inside the instance through the OCI runtime, bounded by the notifier's
//     timeoutSeconds, the whole process tree killed at the timeout (NTF-005, NTF-007,
//     NTF-008); signal actions go to the instance's init process (NTF-006);
//   - an instance that ends under its action gives PodTerminated (pod terminating or
//     terminal) or ContainerRestarted (NTF-013): when an action fails, the engine waits a
//     moment (2 s; in a stopping pod until its budget ends) for the instance's end before it
//     calls the failure the handler's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/store"
)

// notifyDir is the pod subdirectory that keeps the accepted turns (one DeliverRequest per
// Notification) so that an adopting supervisor finishes their records.
const notifyDir = "notify"

// notifyPoll bounds how long a waiting delivery sleeps between two looks at the other
// Notifications' records.
const notifyPoll = 50 * time.Millisecond

// Notifier delivers notifications to one engine's pod. The supervisor makes one per engine
// (NewNotifier) and routes supervisor.OpNotify to Notify.
type Notifier struct {
	e     *Engine
	mu    sync.Mutex
	byUID map[string]*delivering
	wg    sync.WaitGroup
}

// NewNotifier returns the notifier bookkeeping of an engine.
func NewNotifier(e *Engine) *Notifier {
	return &Notifier{e: e, byUID: map[string]*delivering{}}
}

// delivering is one accepted turn: the pod record and the request it came with.
type delivering struct {
	req  notify.DeliverRequest
	path string
	mu   sync.Mutex // guards rec and the record file
	rec  *v1alpha1.PodNotificationRecord
}

// Notify takes a target pod's turn of a Notification: it decides the pod-level outcome and
// the container deliveries, persists the pod record, and starts the deliveries; it returns
// the record as persisted (Running, or final when no delivery runs). A repeated request for
// the same Notification returns the current record without running anything again.
//
// Its steps: check the request (checkDeliverRequest); wait until the engine knows its
// instances; take the turn once (acceptTurn); decide and persist the record (decideTurn:
// planTurnLocked for a new turn, resumeTurnLocked for one a lost supervisor had accepted);
// start one delivery per pending container (deliver).
func (n *Notifier) Notify(ctx context.Context, req *notify.DeliverRequest) (*v1alpha1.PodNotificationRecord, error) {
	e := n.e
	if err := e.checkDeliverRequest(req); err != nil {
		return nil, err
	}
	// Instances adopted from a lost supervisor are known once Run has started.
	if !e.waitUntil(ctx, func() bool { return e.started || e.st.Pod.Status.FinishedAt != nil }) {
		return nil, ctx.Err()
	}
	d, answer, err := n.acceptTurn(req)
	if d == nil {
		return answer, err
	}
	out, slots, err := e.decideTurn(d)
	if err != nil {
		n.mu.Lock()
		delete(n.byUID, req.UID)
		n.mu.Unlock()
		return nil, err
	}
	if notify.Final(out.Phase) {
		e.forgetTurn(req.UID)
		return out, nil
	}
	for i, s := range slots {
		n.wg.Add(1)
		go n.deliver(ctx, d, i, s)
	}
	return out, nil
}

// checkDeliverRequest refuses a request that is not for this pod or names its Notification's
// directory wrongly.
func (e *Engine) checkDeliverRequest(req *notify.DeliverRequest) error {
	if req.PodUID != e.info.UID {
		return fmt.Errorf("notification %s targets pod UID %s, this pod is %s", req.Name, req.PodUID, e.info.UID)
	}
	if store.ValidName(req.Name) != nil || filepath.Base(req.Dir) != req.Name || !filepath.IsAbs(req.Dir) {
		return fmt.Errorf("bad notification request %q in %q", req.Name, req.Dir)
	}
	return nil
}

// acceptTurn takes the turn of req once: it reads the pod's record and registers the turn
// (in memory and on disk, for an adopting supervisor). It returns the turn, or, with no turn,
// Notify's answer: the current record of a turn already taken, the final record on disk, or
// why the record cannot be read.
func (n *Notifier) acceptTurn(req *notify.DeliverRequest) (*delivering, *v1alpha1.PodNotificationRecord, error) {
	e := n.e
	n.mu.Lock()
	if d := n.byUID[req.UID]; d != nil {
		n.mu.Unlock()
		return nil, d.snapshot(), nil
	}
	path := notify.RecordPath(req.Dir, e.info.Name, e.info.UID)
	rec, err := notify.ReadRecord(path)
	if err != nil {
		n.mu.Unlock()
		return nil, nil, fmt.Errorf("notification %s: %w", req.Name, err)
	}
	if notify.Final(rec.Phase) {
		n.mu.Unlock()
		e.forgetTurn(req.UID)
		return nil, rec, nil
	}
	d := &delivering{req: *req, path: path, rec: rec}
	n.byUID[req.UID] = d
	n.mu.Unlock()
	if err := e.rememberTurn(req); err != nil {
		e.logf("notification %s: %v", req.Name, err)
	}
	return d, nil, nil
}

// decideTurn decides the turn's record under the engine's lock and persists it: a record still
// Pending is a new turn (planTurnLocked), any other one a turn a lost supervisor had accepted
// (resumeTurnLocked); with no delivery to run, the record is final. It returns the record as
// persisted and the deliveries to run, by their index in the record's containers.
func (e *Engine) decideTurn(d *delivering) (*v1alpha1.PodNotificationRecord, map[int]*slot, error) {
	now := time.Now().UTC()
	e.mu.Lock()
	defer e.mu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	rec := d.rec
	var slots map[int]*slot
	if rec.Phase == v1alpha1.NotificationPending {
		slots = e.planTurnLocked(rec, &d.req, now)
	} else {
		slots = e.resumeTurnLocked(rec, now)
	}
	if len(slots) == 0 && !notify.Final(rec.Phase) {
		finishRecord(rec, now)
	}
	if err := notify.WriteRecord(d.path, rec); err != nil {
		return nil, nil, err
	}
	return copyRecord(rec), slots, nil
}

// planTurnLocked decides a new turn: a terminal pod is skipped (NOTIF-009), a terminating one
// too (NOTIF-008); else every main container and sidecar that declares the notifier gets a
// delivery (NTF-009), skipped now if it is not eligible and the pod is not being created
// (NOTIF-011), and a pod with none is skipped (NOTIF-010). It returns the pending deliveries.
func (e *Engine) planTurnLocked(rec *v1alpha1.PodNotificationRecord, req *notify.DeliverRequest, now time.Time) map[int]*slot {
	slots := map[int]*slot{}
	rec.StartedAt = &now
	switch {
	case e.st.Pod.Status.FinishedAt != nil:
		rec.Phase, rec.Reason = v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminated // NOTIF-009
	case e.terminating:
		rec.Phase, rec.Reason = v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminating // NOTIF-008
	default:
		rec.Containers = []v1alpha1.ContainerDelivery{}
		for _, s := range e.slots {
			if (s.kind != KindMain && s.kind != KindSidecar) || declared(s.c, req.Notifier) == nil {
				continue
			}
			cd := v1alpha1.ContainerDelivery{Name: s.name, Phase: v1alpha1.NotificationPending}
			if !e.eligibleLocked(s) && !req.AtCreation {
				cd.Phase, cd.Reason, cd.FinishedAt = v1alpha1.NotificationSkipped, v1alpha1.ReasonNotEligible, &now // NOTIF-011
				cd.Message = "the container is not running and Started"
			}
			rec.Containers = append(rec.Containers, cd)
			if cd.Phase == v1alpha1.NotificationPending {
				slots[len(rec.Containers)-1] = s
			}
		}
		rec.Phase = v1alpha1.NotificationRunning
		if len(rec.Containers) == 0 {
			rec.Phase, rec.Reason = v1alpha1.NotificationSkipped, v1alpha1.ReasonNoMatchingContainers // NOTIF-010
		}
	}
	return slots
}

// resumeTurnLocked takes again a turn a supervisor that was lost had accepted: a delivery it
// had started has an outcome nobody observed (NTF-012); the ones it had not started still run,
// unless the pod has ended. It returns the pending deliveries.
func (e *Engine) resumeTurnLocked(rec *v1alpha1.PodNotificationRecord, now time.Time) map[int]*slot {
	slots := map[int]*slot{}
	for i := range rec.Containers {
		cd := &rec.Containers[i]
		switch cd.Phase {
		case v1alpha1.NotificationRunning:
			cd.Phase, cd.Reason, cd.FinishedAt = v1alpha1.NotificationFailed, ReasonExitStatusLost, &now
			cd.Message = "the supervisor was lost while the action ran; its outcome is unknown"
		case v1alpha1.NotificationPending:
			if s := e.byName[cd.Name]; s != nil && e.st.Pod.Status.FinishedAt == nil {
				slots[i] = s
			} else {
				cd.Phase, cd.Reason, cd.FinishedAt = v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminated, &now
			}
		}
	}
	return slots
}

// Wait waits (at most timeout) until every accepted delivery has recorded its
// outcome. The supervisor calls it after the pod is terminal and before it exits.
func (n *Notifier) Wait(timeout time.Duration) {
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		n.e.logf("notifier deliveries still running after %s", timeout)
	}
}

// Resume takes again the turns an earlier supervisor of this pod had accepted
// but not finished (after adoption). The supervisor calls it once, next to Run.
func (n *Notifier) Resume(ctx context.Context) {
	e := n.e
	ents, err := os.ReadDir(e.pod.Path(notifyDir))
	if err != nil {
		return
	}
	for _, ent := range ents {
		b, err := os.ReadFile(e.pod.Path(notifyDir, ent.Name()))
		if err != nil {
			continue
		}
		var req notify.DeliverRequest
		if json.Unmarshal(b, &req) != nil {
			continue
		}
		if _, err := n.Notify(ctx, &req); err != nil {
			e.logf("resume notification %s: %v", req.Name, err)
			e.forgetTurn(req.UID)
		}
	}
}

func (e *Engine) rememberTurn(req *notify.DeliverRequest) error {
	if err := os.MkdirAll(e.pod.Path(notifyDir), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(e.pod.Path(notifyDir, req.UID+".json"), b, 0o600)
}

func (e *Engine) forgetTurn(uid string) {
	if uid != "" && !strings.ContainsRune(uid, '/') {
		os.Remove(e.pod.Path(notifyDir, uid+".json"))
	}
}

// declared returns the container's notifier of that name, or nil.
func declared(c *v1alpha1.Container, name string) *v1alpha1.Notifier {
	for i := range c.Notifiers {
		if c.Notifiers[i].Name == name {
			return &c.Notifiers[i]
		}
	}
	return nil
}

// eligibleLocked reports whether the pod and the container are eligible now (e.mu held).
func (e *Engine) eligibleLocked(s *slot) bool {
	if e.terminating || e.st.Pod.Status.FinishedAt != nil {
		return false
	}
	if s.kind != KindMain && s.kind != KindSidecar {
		return false
	}
	return s.inst != nil && s.rec().Running && s.status().Started && s.status().State.Running != nil
}

// deliver runs one container delivery: it waits for the container to be eligible (pods
// targeted at creation) and for earlier Notifications' deliveries to the same container and
// notifier, persists Running, runs the action and records the outcome.
func (n *Notifier) deliver(ctx context.Context, d *delivering, idx int, s *slot) {
	e := n.e
	defer n.wg.Done()
	nf := declared(s.c, d.req.Notifier)
	var inst *instance
	for {
		e.mu.Lock()
		finished := e.st.Pod.Status.FinishedAt != nil
		terminating := e.terminating
		eligible := e.eligibleLocked(s)
		ended := s.rec().Terminal
		inst = s.inst
		ch := e.changed
		e.mu.Unlock()
		switch {
		case finished:
			e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminated, "the pod ended before the delivery started", nil)
			return
		case terminating:
			e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminating, "the pod began terminating before the delivery started", nil)
			return
		case !eligible && (!d.req.AtCreation || ended):
			e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonNotEligible, "the container is not running and Started", nil)
			return
		case !eligible:
			// NOTIF-012: wait for the container to become eligible for the first time.
			waitChange(ctx, ch, time.Second)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		wait, err := e.earlierDelivery(&d.req, s.name)
		if err != nil {
			e.logf("notification %s: %v", d.req.Name, err)
		}
		if !wait && n.runningEarlier(&d.req, s.name) {
			wait = true
		}
		if wait {
			waitChange(ctx, ch, notifyPoll)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		break
	}
	// NOTIF-020: a deleted Notification starts nothing.
	if o, err := notify.ReadObject(d.req.Dir); err != nil || o.UID != d.req.UID {
		e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonNotEligible, "the notification was deleted", nil)
		return
	}
	// The last look at the stop (MAIN-005): from here until the action's process has begun
	// (or its signal was sent), a stop that begins the stop sequence waits (start.go).
	e.mu.Lock()
	begun, ok := e.beginStepLocked(barredByStop)
	finished := e.st.Pod.Status.FinishedAt != nil
	e.mu.Unlock()
	switch {
	case !ok && finished:
		e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminated, "the pod ended before the delivery started", nil)
		return
	case !ok:
		e.finishDelivery(d, idx, v1alpha1.NotificationSkipped, v1alpha1.ReasonPodTerminating, "the pod began terminating before the delivery started", nil)
		return
	}
	defer begun()
	// NTF-011: persist Running with the instance before the action.
	now := time.Now().UTC()
	d.mu.Lock()
	cd := &d.rec.Containers[idx]
	cd.Phase, cd.ContainerID, cd.StartedAt = v1alpha1.NotificationRunning, inst.id, &now
	d.mu.Unlock()
	if err := e.writeRecord(ctx, d); err != nil {
		e.logf("notification %s: persist delivery to %s: %v", d.req.Name, s.name, err)
		return
	}
	e.notifierStarted(s, inst, nf, d.req.Name)

	actx := ctx
	phase, reason, msg, code := e.runAction(actx, s, inst, nf, begun)

	result := ResultSucceeded
	switch {
	case reason == v1alpha1.ReasonHandlerTimeout:
		result = ResultTimeout
	case phase == v1alpha1.NotificationFailed:
		result = ResultFailed
	}
	e.mu.Lock()
	ev := e.instEvent(runtimev1.EventNotifierFinished, s, inst, reason, msg)
	ev.Notifier, ev.Notification, ev.Result, ev.ExitCode = nf.Name, d.req.Name, result, code
	e.commitLocked(ev)
	e.mu.Unlock()
	e.finishDelivery(d, idx, phase, reason, msg, code)
}

// notifierStarted records NotifierStarted of the Notification named notification in the instance.
func (e *Engine) notifierStarted(s *slot, inst *instance, nf *v1alpha1.Notifier, notification string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := e.instEvent(runtimev1.EventNotifierStarted, s, inst, "", "")
	ev.Notifier, ev.Notification = nf.Name, notification
	e.commitLocked(ev)
}

// endedWait is how long to wait for an instance's end seen under an action in a stopping pod
// whose budget ends at deadline: until 2 s past that end, at least wait, at most a minute.
func endedWait(wait time.Duration, deadline time.Time) time.Duration {
	if d := addDuration(time.Until(deadline), 2*time.Second); d > wait {
		return min(d, time.Minute)
	}
	return wait
}

// runAction runs the notifier's action in the instance and classifies the outcome; begun is
// called once the action has begun: its process, or its signal sent.
func (e *Engine) runAction(ctx context.Context, s *slot, inst *instance, nf *v1alpha1.Notifier, begun func()) (phase v1alpha1.NotificationPhase, reason, msg string, code *int32) {
	ended := func() (bool, string) {
		// The instance may be ending under the action: give the engine a moment to see it —
		// in a stopping pod, until the stop budget ends (its instances end by then); and when
		// its main process is already gone, as long as the engine takes to record that (a
		// loaded machine can take more than a moment; NTF-013).
		wait := 2 * time.Second
		if processEnded(inst.pid) {
			wait = time.Minute
		}
		e.mu.Lock()
		if e.terminating && e.st.Stop != nil {
			wait = endedWait(wait, e.st.Stop.Deadline)
		}
		e.mu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		gone := e.waitUntil(wctx, func() bool { return s.inst != inst || e.st.Pod.Status.FinishedAt != nil })
		if !gone {
			return false, ""
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.terminating || e.st.Pod.Status.FinishedAt != nil {
			return true, v1alpha1.ReasonPodTerminated
		}
		return true, v1alpha1.ReasonContainerRestarted
	}
	switch {
	case nf.Action.Exec != nil:
		timeout := secondsOf(int64(v1alpha1.DefaultNotifierTimeoutSeconds))
		if nf.TimeoutSeconds != nil {
			timeout = secondsOf(int64(*nf.TimeoutSeconds))
		}
		tctx, cancel := context.WithTimeout(ctx, timeout)
		c, err := e.be.Exec(tctx, inst.id, nf.Action.Exec.Command, begun)
		timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if timedOut {
			return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerTimeout,
				fmt.Sprintf("the action ran longer than %s; its process tree was killed", timeout), nil
		}
		if err != nil || c != 0 {
			if gone, why := ended(); gone {
				return v1alpha1.NotificationFailed, why, "the container instance ended while the action ran", nil
			}
		}
		if err != nil {
			return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, "the action could not be started: " + err.Error(), nil
		}
		cc := int32(c)
		if c != 0 {
			return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, fmt.Sprintf("the action exited %d", c), &cc
		}
		return v1alpha1.NotificationSucceeded, "", "", &cc
	case nf.Action.Signal != "":
		n, ok := v1alpha1.SignalNumber(nf.Action.Signal)
		if !ok {
			return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, "unknown signal " + nf.Action.Signal, nil
		}
		sig := syscall.Signal(n)
		num := int32(n)
		e.mu.Lock()
		ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", "notifier "+nf.Name)
		ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(num), Number: num}
		e.commitLocked(ev)
		e.mu.Unlock()
		err := e.sendSignal(ctx, inst, sig)
		begun()
		if err != nil {
			if gone, why := ended(); gone {
				return v1alpha1.NotificationFailed, why, "the container instance ended before the signal was delivered", nil
			}
			return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, "the signal could not be delivered: " + err.Error(), nil
		}
		return v1alpha1.NotificationSucceeded, "", "", nil
	}
	return v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, "the notifier has no action", nil
}

// processEnded reports whether the host process pid has ended: gone, or a zombie not reaped
// yet. A pid that was reused counts as running (the caller then waits only a moment).
func processEnded(pid int) bool {
	if pid <= 0 {
		return false
	}
	st, err := procstat.Read(pid)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return st.Ended()
}

// finishDelivery records a delivery's final phase and, once every delivery of the pod record is
// final, the record's (NOTIF-013).
func (e *Engine) finishDelivery(d *delivering, idx int, phase v1alpha1.NotificationPhase, reason, msg string, code *int32) {
	now := time.Now().UTC()
	d.mu.Lock()
	cd := &d.rec.Containers[idx]
	cd.Phase, cd.Reason, cd.Message, cd.ExitCode, cd.FinishedAt = phase, reason, msg, code, &now
	final := true
	for _, c := range d.rec.Containers {
		if !notify.Final(c.Phase) {
			final = false
		}
	}
	if final {
		finishRecord(d.rec, now)
	}
	d.mu.Unlock()
	if err := e.writeRecord(e.life, d); err != nil {
		e.logf("notification %s: record delivery to %s: %v", d.req.Name, cd.Name, err)
	}
	if final {
		e.forgetTurn(d.req.UID)
	}
}

// writeRecord writes a delivery's pod record as it is in memory. On a full disk it tries again,
// more and more rarely (up to every 2 s), until the record is written or ctx ends: an outcome is
// never dropped because there was no room for it at the moment it was decided.
func (e *Engine) writeRecord(ctx context.Context, d *delivering) error {
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		d.mu.Lock()
		err := notify.WriteRecord(d.path, d.rec)
		d.mu.Unlock()
		if err == nil || !store.IsNoSpace(err) {
			return err
		}
		if wait == 50*time.Millisecond {
			e.logf("notification %s: %v; trying again until there is room", d.req.Name, err)
		}
		if !sleepCtx(ctx, wait) {
			return err
		}
	}
}

func finishRecord(rec *v1alpha1.PodNotificationRecord, now time.Time) {
	rec.Phase = notify.RecordPhase(rec.Containers)
	rec.FinishedAt = &now
}

// earlierDelivery reports whether a Notification created before req, of the same notifier,
// still has a delivery to this pod's container to make or to finish (HB-017). It reads the
// other Notifications' records: a pod record still Pending (its turn has not come), a
// delivery to the container Pending or Running, or — for an AllPods Notification that targets
// this pod but whose runner has not written the record yet — no record at all.
func (e *Engine) earlierDelivery(req *notify.DeliverRequest, container string) (bool, error) {
	ns := &notify.Store{Dir: filepath.Dir(req.Dir)}
	objs, err := ns.List()
	if err != nil {
		return false, err
	}
	e.mu.Lock()
	pi := notify.PodInfo{Name: e.info.Name, UID: e.info.UID, Labels: e.st.Pod.Metadata.Labels, CreationLabels: e.st.LabelsAtCreation(), CreatedAt: e.st.CreatedAt}
	e.mu.Unlock()
	for _, o := range objs {
		if o.Seq >= req.Seq || o.UID == req.UID || o.Notification.Spec.Notifier != req.Notifier {
			continue
		}
		rec, err := notify.ReadRecord(notify.RecordPath(ns.Path(o.Notification.Metadata.Name), pi.Name, pi.UID))
		if err != nil {
			if notify.TargetsLater(o, pi) {
				return true, nil
			}
			continue
		}
		switch rec.Phase {
		case v1alpha1.NotificationPending:
			return true, nil
		case v1alpha1.NotificationRunning:
			for _, cd := range rec.Containers {
				if cd.Name == container && !notify.Final(cd.Phase) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// runningEarlier reports whether this supervisor runs a delivery of an earlier Notification of
// the same notifier to the container. earlierDelivery reads the Notifications that exist; one
// deleted while its delivery runs goes on (NOTIF-019) and still comes first (HB-017).
func (n *Notifier) runningEarlier(req *notify.DeliverRequest, container string) bool {
	n.mu.Lock()
	ds := make([]*delivering, 0, len(n.byUID))
	for _, d := range n.byUID {
		if d.req.UID != req.UID && d.req.Seq < req.Seq && d.req.Notifier == req.Notifier {
			ds = append(ds, d)
		}
	}
	n.mu.Unlock()
	for _, d := range ds {
		d.mu.Lock()
		for _, cd := range d.rec.Containers {
			if cd.Name == container && cd.Phase == v1alpha1.NotificationRunning {
				d.mu.Unlock()
				return true
			}
		}
		d.mu.Unlock()
	}
	return false
}

func (d *delivering) snapshot() *v1alpha1.PodNotificationRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	return copyRecord(d.rec)
}

func copyRecord(r *v1alpha1.PodNotificationRecord) *v1alpha1.PodNotificationRecord {
	c := *r
	c.Containers = append([]v1alpha1.ContainerDelivery{}, r.Containers...)
	return &c
}

// waitChange waits until ch is closed, d passes or ctx ends.
func waitChange(ctx context.Context, ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}
