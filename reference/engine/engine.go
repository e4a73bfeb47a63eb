// Package engine is the reference runtime's lifecycle engine: it runs one pod from creation to
// its terminal phase inside the pod's supervisor process — init containers in order, sidecars
// gated on Started, main containers ordered by dependsOn, probes and hooks, restarts with
// back-off, the exit policy and the pod result, the deadline and the stop sequence — and
// records every transition in the pod's state file and events log.
//
// The engine does not talk to runc, images or namespaces itself (Backend does), and it does
// not wait for processes itself (Watcher does). Each container runs in a goroutine of its own;
// all shared state is guarded by one mutex, and every change wakes the goroutines that wait
// for a condition.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// Container kinds as events and instances name them.
const (
	KindInit    = "init"
	KindSidecar = "sidecar"
	KindMain    = "main"
	KindDefer   = "defer"
)

// Pod-level reasons the engine records in status.reason and in stop requests.
const (
	// ReasonExitStatusLost is the terminated reason of an instance whose exit nobody observed
	// with its status (it ended while no supervisor was its parent).
	ReasonExitStatusLost = "ExitStatusLost"
	// ReasonUnhealthy is the terminated reason of an instance killed after a failed
	// livenessProbe or startupProbe.
	ReasonUnhealthy = "Unhealthy"
	// ReasonBackOff is the waiting reason of a container between two instances.
	ReasonBackOff = "BackOff"
)

// Options configure an Engine.
type Options struct {
	// Pod is the pod's directory; its state file must exist.
	Pod *store.Pod
	// Backend runs sandboxes and container instances.
	Backend Backend
	// Watcher reports process ends.
	Watcher Watcher
	// Adopt resumes a pod whose previous supervisor died, from its persisted state.
	Adopt bool
	// Supervisor, when set, is recorded in the state as the pod's supervisor by the state
	// write New makes anyway (one write instead of two at every supervisor start).
	Supervisor *store.SupervisorInfo
	// Logf receives diagnostics (the supervisor's log); nil discards them.
	Logf func(format string, args ...any)
	// CreateParallelism bounds how many container instances are created and started at
	// once; 0: the pod's State.CreateParallelism, else DefaultCreateParallelism.
	CreateParallelism int
}

// Engine runs one pod.
type Engine struct {
	pod    *store.Pod
	be     Backend
	w      Watcher
	logf   func(string, ...any)
	adopt  bool
	info   *PodInfo
	events *store.EventLog
	gate   *creationGate

	mu          sync.Mutex
	st          *store.State
	changed     chan struct{}
	slots       []*slot
	byName      map[string]*slot
	terminating bool
	stopCtx     context.Context
	stopCancel  context.CancelFunc // ends the stop steps (budget end or force)
	forced      bool
	// reserveReached is set at the reserve point of the grace budget.
	reserveReached bool
	// killingAll is set when the stop sequence's final SIGKILL of everything still running
	// begins (budget over, forced, or every step done): no more sidecar restarts.
	killingAll    bool
	deadlineArmed bool
	// started is set once Run launched the container goroutines; a stop requested earlier
	// is recorded and its sequence started by Run.
	started  bool
	runCtx   context.Context
	wg       sync.WaitGroup
	finished chan struct{}
	// persistErr is the error of the last state or event write, nil once one succeeded
	// again; while it is set, events are held in e.events and retryPersist runs.
	persistErr error
	// failingSince is when the writes began to fail.
	failingSince time.Time
	// life ends when Run returns: it bounds retryPersist.
	life    context.Context
	endLife context.CancelFunc
	// upd is the bookkeeping of in-place updates (update.go); nil until the first one.
	upd *updateState
	// stopsWaiting counts the stops waiting for the starts under way to end before they begin
	// or become forced; startCond (on mu) is signalled when it falls and at every wakeLocked
	// (MAIN-004, start.go).
	stopsWaiting int
	startCond    *sync.Cond
	// execsStarting counts the exec steps whose start is under way, by the stop that forbids
	// them (MAIN-005, start.go).
	execsStarting [2]int
}

// New loads the pod's state and prepares an engine; Run starts it.
func New(o Options) (*Engine, error) {
	st, err := o.Pod.ReadState()
	if err != nil {
		return nil, err
	}
	ev, err := o.Pod.OpenEventLog()
	if err != nil {
		return nil, err
	}
	e := &Engine{
		pod: o.Pod, be: o.Backend, w: o.Watcher, logf: o.Logf, adopt: o.Adopt,
		events: ev, st: st, changed: make(chan struct{}), byName: map[string]*slot{},
		finished: make(chan struct{}),
	}
	e.startCond = sync.NewCond(&e.mu)
	e.life, e.endLife = context.WithCancel(context.Background())
	n := o.CreateParallelism
	if n <= 0 {
		n = st.CreateParallelism
	}
	e.gate = newCreationGate(n)
	if e.logf == nil {
		e.logf = func(string, ...any) {}
	}
	// A supervisor lost between a state write and the events that describe it left them in
	// the state: they go into the log now, in their place, before anything else (SUP-009).
	if n, err := ev.Recover(st.UnwrittenEvents); err != nil {
		e.logf("%v", err)
	} else if n > 0 {
		e.logf("wrote %d event(s) the lost supervisor had recorded only in the state", n)
	}
	p := &st.Pod
	if p.Status == nil {
		p.Status = &v1alpha1.PodStatus{}
	}
	e.info = &PodInfo{Name: p.Metadata.Name, UID: p.Status.UID, Dir: o.Pod.Dir, Spec: &p.Spec, Images: st.Images}
	if st.Containers == nil {
		st.Containers = map[string]*store.Instance{}
	}
	e.buildSlots()
	if o.Supervisor != nil {
		st.Supervisor = *o.Supervisor
	}
	// A pod created by an older build has no reserved failure record yet.
	if err := o.Pod.ReservePersistError(); err != nil {
		e.logf("%v", err)
	}
	if err := o.Pod.WriteState(st); err != nil {
		ev.Close()
		return nil, err
	}
	return e, nil
}

// WaitAdopted waits until an adopting engine's Run has taken the pod over — the instances
// found alive are watched, the ends of those found gone are recorded — so that what is on
// disk is the adopter's view, or until ctx ends; it reports which. An engine that does not
// adopt returns at once.
func (e *Engine) WaitAdopted(ctx context.Context) bool {
	if !e.adopt {
		return true
	}
	return e.waitUntil(ctx, func() bool {
		if !e.started {
			return e.st.Pod.Status.FinishedAt != nil
		}
		for _, s := range e.slots {
			if s.kind != KindDefer && s.inst != nil && s.inst.lostAtAdoption {
				return false
			}
		}
		return true
	})
}

// Finished is closed once the pod is terminal and PodFinished is recorded.
func (e *Engine) Finished() <-chan struct{} { return e.finished }

// Status returns a copy of the pod's current status.
func (e *Engine) Status() v1alpha1.PodStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	return *deepCopyStatus(e.st.Pod.Status)
}

// Run runs the pod until it is terminal (or ctx ends, which abandons it without stopping it:
// the containers keep running for an adopting supervisor).
func (e *Engine) Run(ctx context.Context) error {
	defer e.endLife()
	e.mu.Lock()
	e.runCtx = ctx
	if e.st.Pod.Status.FinishedAt != nil {
		e.mu.Unlock()
		close(e.finished)
		return nil
	}
	if e.adopt {
		e.commitLocked(e.event(store.EventSupervisorAdopted, nil, "", fmt.Sprintf("supervisor generation %d adopted the pod", e.st.Supervisor.Generation)))
	}
	needSandbox := len(e.st.Sandbox) == 0
	e.mu.Unlock()

	if needSandbox {
		sb, err := e.be.SetupSandbox(ctx, e.info)
		if err != nil {
			e.logf("sandbox: %v", err)
			e.failCreation(ctx, fmt.Errorf("set up sandbox: %w", err))
			return err
		}
		e.mu.Lock()
		e.st.Sandbox = sb
		e.mu.Unlock()
	}
	// The published ports are forwarded by this supervisor, from before the first container
	// starts (a fresh pod) or at once (an adopted one), until the pod is terminal.
	if fwd, err := e.be.Publish(ctx, e.info, e.st.Sandbox, e.st.Ports); err == nil {
		defer fwd.Close()
	} else {
		e.logf("publish: %v", err)
		if needSandbox {
			e.failCreation(ctx, err)
			return err
		}
		// An adopted pod runs on, unreachable: its supervisor's log says why.
	}
	if needSandbox {
		e.mu.Lock()
		e.commitLocked(e.event(runtimev1.EventPodStarted, nil, "", ""))
		e.mu.Unlock()
	}

	e.mu.Lock()
	var resume []*slot
	for _, s := range e.slots {
		if rec := e.st.Containers[s.name]; rec != nil && rec.PID != 0 && !rec.Terminal {
			resume = append(resume, s)
		}
	}
	e.mu.Unlock()
	// Adopted instances: watch the ones still alive, record the lost ones.
	adopted := map[*slot]*instance{}
	for _, s := range resume {
		if inst := e.adoptInstance(ctx, s); inst != nil {
			adopted[s] = inst
		}
	}

	e.mu.Lock()
	for _, s := range e.slots {
		rec := e.st.Containers[s.name]
		if s.kind == KindDefer || (rec != nil && rec.Terminal) {
			continue // defers run in the stop sequence (defer.go)
		}
		if rec != nil && rec.Running && adopted[s] == nil {
			continue
		}
		e.wg.Add(1)
		go e.runSlot(ctx, s, adopted[s])
	}
	if e.st.Stop != nil {
		e.resumeStopLocked()
	}
	if e.adopt {
		e.resumeUpdatesLocked() // update restarts the lost supervisor had not finished
	}
	e.armDeadlineLocked()
	e.armVolumeLimitsLocked()
	e.started = true
	// Wake whoever waits for the start (a notifier turn resumed after adoption waits in
	// Notifier.Notify): nothing may be committed now to do it for us.
	e.wakeLocked()
	// A pod whose every main container is already terminal (adopted at the very end) still
	// needs its policy decision.
	e.evaluatePolicyLocked(nil)
	e.mu.Unlock()

	select {
	case <-e.finished:
		// The terminal state and PodFinished are on disk before the supervisor may exit
		// (held in memory on a full disk until retryPersist writes them).
		e.waitUntil(ctx, func() bool { return e.persistErr == nil })
		e.mu.Lock()
		defer e.mu.Unlock()
		e.events.Close()
		return e.persistErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failCreation records a pod that could not start its sandbox as Failed.
func (e *Engine) failCreation(ctx context.Context, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now().UTC()
	s := e.st.Pod.Status
	s.Phase = v1alpha1.PodFailed
	s.Reason = "SandboxFailed"
	s.Message = err.Error()
	code := int32(1)
	s.ExitCode = &code
	s.FinishedAt = &now
	if s.StartedAt == nil {
		s.StartedAt = &now
	}
	e.skipDefersLocked("SandboxFailed", "the pod's sandbox could not be set up")
	e.deferCompletedLocked(now)
	ev := e.event(runtimev1.EventPodFinished, nil, "SandboxFailed", err.Error())
	ev.Phase = s.Phase
	ev.ExitCode = &code
	e.commitLocked(ev)
	close(e.finished)
}

// armDeadlineLocked starts the activeDeadlineSeconds timer once status.startedAt is set.
func (e *Engine) armDeadlineLocked() {
	d := e.st.Pod.Spec.ActiveDeadlineSeconds
	if d == nil || e.st.Pod.Status.StartedAt == nil || e.deadlineArmed {
		return
	}
	e.deadlineArmed = true
	at := activeDeadline(*e.st.Pod.Status.StartedAt, *d)
	go e.deadline(e.runCtx, at)
}

// deadline requests the stop with reason DeadlineExceeded when activeDeadlineSeconds pass.
func (e *Engine) deadline(ctx context.Context, at time.Time) {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return
	case <-e.finished:
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.terminating {
		return
	}
	ev := e.event(runtimev1.EventStopRequested, nil, TerminationDeadlineExceeded, "activeDeadlineSeconds exceeded")
	g := e.gracePeriod()
	ev.GracePeriodSeconds = &g
	e.beginStopLocked(ctx, TerminationDeadlineExceeded, g, false, "", ev)
}

// Stop requests a graceful stop with the given grace period (nil: the pod's), or a forced one.
// It returns once the request is persisted. A request on a stopping pod escalates it when it is
// forced or its budget ends earlier; on a terminal pod it does nothing.
func (e *Engine) Stop(ctx context.Context, grace *int64, force bool) error {
	return e.StopOnce(ctx, "", grace, force)
}

// maxStopIDs bounds the request IDs a stop remembers.
const maxStopIDs = 32

// StopOnce is Stop for a request that carries an ID (id may be empty): a request whose ID was
// already recorded — a command sending it again after losing the answer — is recorded and
// applied once. The IDs are persisted with the stop, so an adopting supervisor knows them.
func (e *Engine) StopOnce(ctx context.Context, id string, grace *int64, force bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st.Pod.Status.FinishedAt != nil {
		return nil
	}
	if id != "" && e.st.Stop != nil && slices.Contains(e.st.Stop.RequestIDs, id) {
		if e.persistErr != nil {
			e.commitLocked() // one more try to write what is held
		}
		return e.notPersisted()
	}
	g := e.gracePeriod()
	if grace != nil {
		if *grace < 0 {
			return fmt.Errorf("stop: gracePeriodSeconds %d: must be at least 0 (0 forces the stop)", *grace)
		}
		g = *grace
	}
	if g <= 0 {
		force = true
		g = 0
	}
	ev := e.event(runtimev1.EventStopRequested, nil, "", "")
	ev.GracePeriodSeconds = &g
	ev.Force = force
	reason := TerminationStopped
	if force {
		reason = TerminationForced
	}
	e.beginStopLocked(ctx, reason, g, force, id, ev)
	return e.notPersisted()
}

// ErrNotPersisted marks a request the engine carries out although it could not write it to
// disk (a full disk): its events are held in memory until there is room.
var ErrNotPersisted = errors.New("not written to disk")

// notPersisted is nil when the last write succeeded, else an ErrNotPersisted error.
func (e *Engine) notPersisted() error {
	if e.persistErr == nil {
		return nil
	}
	return fmt.Errorf("the request is in effect but %w (held in memory until there is room): %v", ErrNotPersisted, e.persistErr)
}

func (e *Engine) gracePeriod() int64 {
	if g := e.st.Pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return *g
	}
	return v1alpha1.DefaultTerminationGracePeriodSeconds
}

// event builds an event for the pod, or for a container when s is not nil.
func (e *Engine) event(typ runtimev1.EventType, s *slot, reason, msg string) *runtimev1.Event {
	ev := &runtimev1.Event{Type: typ, Pod: e.info.Name, PodUID: e.info.UID, Reason: reason, Message: msg, Time: time.Now().UTC()}
	if s != nil {
		ev.Container = s.name
		ev.ContainerKind = s.kind
	}
	return ev
}

// commitLocked updates the derived pod conditions, persists the state, then appends the
// events. Called with e.mu held; wakes every waiter.
func (e *Engine) commitLocked(evs ...*runtimev1.Event) {
	select {
	case <-e.finished:
		// PodFinished is the last event and the terminal state is final: a goroutine that ends
		// after the pod finished (a hook or probe killed at the budget end) records nothing
		// more, so the pod directory is never written while it is being removed.
		if len(evs) > 0 {
			e.logf("dropped %d event(s) after PodFinished, first %s", len(evs), evs[0].Type)
		}
		e.wakeLocked()
		return
	default:
	}
	e.updateConditionsLocked(evs)
	e.persistLocked(evs)
	e.wakeLocked()
}

// persistLocked writes the state, then the held events and evs (the state is always written
// before the events that describe it, and carries them, so that a supervisor lost between the
// two writes loses none: New appends them). When a write fails (a full disk) nothing is lost and
// nothing is half-written: evs are held in memory, in order — the first failure puts a
// PersistenceFailed event before them — the failure is recorded in the pod's reserved
// persist.error file, where the command line reads it, and retryPersist writes everything
// once there is room again.
func (e *Engine) persistLocked(evs []*runtimev1.Event) {
	pending, err := e.events.Pending(evs...)
	if err == nil {
		e.st.UnwrittenEvents = pending
		err = e.pod.WriteState(e.st)
	}
	if err == nil {
		err = e.events.Append(evs...)
	}
	if err == nil {
		if e.persistErr != nil {
			e.logf("state and events written again (after: %v)", e.persistErr)
			if err := e.pod.SetPersistError(nil); err != nil {
				e.logf("%v", err)
			}
			e.persistErr = nil
		}
		return
	}
	if e.persistErr == nil {
		e.failingSince = time.Now().UTC()
		e.logf("persist: %v; holding the events in memory until there is room", err)
		msg := fmt.Sprintf("the state and events could not be written (%v); they are held in memory and written once there is room", err)
		evs = append([]*runtimev1.Event{e.event(store.EventPersistenceFailed, nil, "", msg)}, evs...)
		go e.retryPersist()
	}
	if serr := e.pod.SetPersistError(&store.PersistFailure{Since: e.failingSince, Error: err.Error()}); serr != nil {
		e.logf("%v", serr)
	}
	e.persistErr = err
	if err := e.events.Hold(evs...); err != nil {
		e.logf("hold events: %v", err)
	}
}

// retryPersist writes the state and the held events again, more and more rarely (up to every
// 2 s), until one write succeeds or Run has returned.
func (e *Engine) retryPersist() {
	for d := 50 * time.Millisecond; ; d = min(2*d, 2*time.Second) {
		if !sleepCtx(e.life, d) {
			return
		}
		e.mu.Lock()
		if e.persistErr == nil {
			e.mu.Unlock()
			return
		}
		e.persistLocked(nil)
		ok := e.persistErr == nil
		e.wakeLocked()
		e.mu.Unlock()
		if ok {
			return
		}
	}
}

// wakeLocked wakes every waitUntil and sleep: the state they wait on may have changed.
func (e *Engine) wakeLocked() {
	close(e.changed)
	e.changed = make(chan struct{})
	e.startCond.Broadcast() // a stop waiting for the starts under way (start.go)
}

// waitUntil blocks until cond (evaluated with e.mu held) is true or ctx ends; it reports
// whether cond became true.
func (e *Engine) waitUntil(ctx context.Context, cond func() bool) bool {
	for {
		e.mu.Lock()
		if cond() {
			e.mu.Unlock()
			return true
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// sleep waits d, or less if ctx ends or cond becomes true; it reports whether d fully passed.
func (e *Engine) sleep(ctx context.Context, d time.Duration, cond func() bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		e.mu.Lock()
		if cond != nil && cond() {
			e.mu.Unlock()
			return false
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-t.C:
			return true
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// updateConditionsLocked derives phase Running, Initialized, Ready and Terminating.
func (e *Engine) updateConditionsLocked(evs []*runtimev1.Event) {
	s := e.st.Pod.Status
	if s.FinishedAt != nil {
		return
	}
	now := time.Now().UTC()
	initialized := e.initializedLocked()
	ready := initialized && !e.terminating
	for _, sl := range e.slots {
		if sl.kind == KindMain && !sl.status().Ready {
			ready = false
		}
	}
	setCondition(s, v1alpha1.PodInitialized, initialized, now)
	setCondition(s, v1alpha1.PodReady, ready, now)
	setCondition(s, v1alpha1.PodTerminating, e.terminating, now)
}

func setCondition(s *v1alpha1.PodStatus, typ v1alpha1.PodConditionType, v bool, now time.Time) {
	st := v1alpha1.ConditionFalse
	if v {
		st = v1alpha1.ConditionTrue
	}
	for i := range s.Conditions {
		if s.Conditions[i].Type == typ {
			if s.Conditions[i].Status != st {
				s.Conditions[i].Status = st
				s.Conditions[i].LastTransitionTime = &now
			}
			return
		}
	}
	s.Conditions = append(s.Conditions, v1alpha1.PodCondition{Type: typ, Status: st, LastTransitionTime: &now})
}

// initializedLocked reports whether every regular init container completed and every sidecar
// started.
func (e *Engine) initializedLocked() bool {
	for _, s := range e.slots {
		switch s.kind {
		case KindInit:
			if !s.rec().Completed {
				return false
			}
		case KindSidecar:
			if !s.rec().EverStarted {
				return false
			}
		}
	}
	return true
}

// errStopped marks work abandoned because the pod is stopping.
var errStopped = errors.New("pod is stopping")

func deepCopyStatus(s *v1alpha1.PodStatus) *v1alpha1.PodStatus {
	c := *s
	c.Conditions = append([]v1alpha1.PodCondition(nil), s.Conditions...)
	c.InitContainerStatuses = append([]v1alpha1.ContainerStatus(nil), s.InitContainerStatuses...)
	c.ContainerStatuses = append([]v1alpha1.ContainerStatus(nil), s.ContainerStatuses...)
	c.DeferContainerStatuses = append([]v1alpha1.ContainerStatus(nil), s.DeferContainerStatuses...)
	return &c
}
