package engine

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
)

// slot is one declared container (init, sidecar or main) across all of its instances.
type slot struct {
	e      *Engine
	name   string
	kind   string
	index  int // index in its status list
	order  int // position in the pod (init containers, then main containers, then defers)
	c      *v1alpha1.Container
	policy v1alpha1.RestartPolicy

	inst     *instance // the live instance, nil between instances
	creating bool      // an instance is being created
	// stopStep is set when a sidecar's own step of the stop sequence begins: from then on it
	// is not restarted (SIDE-001).
	stopStep bool
}

// instance is one OCI container of a slot.
type instance struct {
	id        string
	pid       int
	n         int32
	startedAt time.Time
	exit      <-chan reaper.ExitStatus
	cancel    context.CancelFunc
	adopted   bool
	// stopResent is set once an adopting supervisor sent the stop signal again.
	stopResent bool
	// lostAtAdoption is set on an instance an adopting supervisor found gone, until its lost
	// exit is recorded (WaitAdopted).
	lostAtAdoption bool
	// killReason (Unhealthy, StartError) and killMsg are set when the runtime killed the
	// instance outside a stop (failed probe or postStart hook).
	killReason, killMsg string
	// pidfd is the init process's pidfd (nil if it could not be opened), the path of the
	// signals (pidfd.go); it is closed once the exit was handled.
	pidfd *pidFD
	// inStart says the OCI runtime's start of this defer attempt is under way; cut that the
	// attempt was killed then, at the reserve point (cutBeforeStopStartsLocked). Both with e.mu.
	inStart, cut bool
}

// outputDrain bounds how long the end of an instance waits for its output to reach its log
// after its process ended (a process of its own that outlived it and holds its output).
const outputDrain = time.Second

// watch returns the channel on which the end of inst, an instance of s, arrives: once its
// process ended and everything it wrote is in its log (bounded by outputDrain), so that a log
// read after its ContainerExited is whole.
func (e *Engine) watch(s *slot, inst *instance) <-chan reaper.ExitStatus {
	exit := e.w.Watch(inst.pid)
	written := e.be.OutputWritten(inst.id, e.pod.LogPath(s.name, inst.n))
	end := make(chan reaper.ExitStatus, 1)
	go func() {
		st := <-exit
		select {
		case <-written:
		case <-time.After(outputDrain):
		}
		end <- st
	}()
	return end
}

func (e *Engine) buildSlots() {
	p := &e.st.Pod
	st := p.Status
	if len(st.InitContainerStatuses) != len(p.Spec.InitContainers) {
		st.InitContainerStatuses = make([]v1alpha1.ContainerStatus, len(p.Spec.InitContainers))
		for i, c := range p.Spec.InitContainers {
			st.InitContainerStatuses[i] = newStatus(&c, e.st.Images[c.Name])
		}
	}
	if len(st.ContainerStatuses) != len(p.Spec.Containers) {
		st.ContainerStatuses = make([]v1alpha1.ContainerStatus, len(p.Spec.Containers))
		for i, c := range p.Spec.Containers {
			st.ContainerStatuses[i] = newStatus(&c, e.st.Images[c.Name])
		}
	}
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		kind := KindInit
		if c.IsSidecar() {
			kind = KindSidecar
		}
		policy := p.Spec.EffectiveRestartPolicy(c, true)
		e.addSlot(&slot{name: c.Name, kind: kind, index: i, c: c, policy: policy})
	}
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		policy := p.Spec.EffectiveRestartPolicy(c, false)
		e.addSlot(&slot{name: c.Name, kind: KindMain, index: i, c: c, policy: policy})
	}
	e.buildDeferSlots()
}

// newStatus is a container's status before it starts; imageID is the image resolved at the
// pod's creation (IMG-016).
func newStatus(c *v1alpha1.Container, imageID string) v1alpha1.ContainerStatus {
	return v1alpha1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: imageID,
		State: v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: "PodInitializing"}}}
}

func (e *Engine) addSlot(s *slot) {
	s.e = e
	s.order = len(e.slots)
	e.slots = append(e.slots, s)
	e.byName[s.name] = s
	if e.st.Containers[s.name] == nil {
		e.st.Containers[s.name] = &store.Instance{}
	}
}

// status is the slot's entry in the pod status (e.mu held).
func (s *slot) status() *v1alpha1.ContainerStatus {
	switch s.kind {
	case KindMain:
		return &s.e.st.Pod.Status.ContainerStatuses[s.index]
	case KindDefer:
		return &s.e.st.Pod.Status.DeferContainerStatuses[s.index]
	}
	return &s.e.st.Pod.Status.InitContainerStatuses[s.index]
}

// rec is the slot's runtime record (e.mu held).
func (s *slot) rec() *store.Instance { return s.e.st.Containers[s.name] }

// busy reports whether the slot has an instance or is creating one (e.mu held).
func (s *slot) busy() bool { return s.inst != nil || s.creating }

// starting reports whether the slot's instance is being started (e.mu held): created, its start
// under way, its ContainerStarted not recorded yet (MAIN-004, start.go).
func (s *slot) starting() bool { return s.inst != nil && !s.rec().Running }

func (e *Engine) instEvent(typ runtimev1.EventType, s *slot, inst *instance, reason, msg string) *runtimev1.Event {
	ev := e.event(typ, s, reason, msg)
	if inst != nil {
		ev.ContainerID = inst.id
		n := inst.n
		ev.RestartCount = &n
	}
	return ev
}

// gate says whether the slot may start an instance now: ok, or failed with a message (a
// dependency failed for good), or neither (wait). Called with e.mu held.
func (e *Engine) gateLocked(s *slot) (ok bool, failed string) {
	switch s.kind {
	case KindInit, KindSidecar:
		if s.index == 0 {
			return true, ""
		}
		prev := e.slots[s.index-1]
		if prev.kind == KindSidecar {
			return prev.rec().EverStarted, ""
		}
		return prev.rec().Completed, ""
	}
	if !e.initializedLocked() {
		return false, ""
	}
	for _, d := range s.c.DependsOn {
		dep := e.byName[d.Name]
		if dep == nil {
			return false, fmt.Sprintf("dependency %s does not exist", d.Name)
		}
		r := dep.rec()
		cond := d.Condition
		switch cond {
		case v1alpha1.ConditionReady:
			if !r.EverReady {
				if r.Terminal {
					return false, fmt.Sprintf("dependency %s ended before it was Ready", d.Name)
				}
				return false, ""
			}
		case v1alpha1.ConditionCompleted:
			if !r.Terminal {
				return false, ""
			}
			if !r.Completed {
				return false, fmt.Sprintf("dependency %s did not complete successfully", d.Name)
			}
		default:
			if !r.EverStarted {
				if r.Terminal {
					return false, fmt.Sprintf("dependency %s ended before it was Started", d.Name)
				}
				return false, ""
			}
		}
	}
	return true, ""
}

// runSlot runs the instances of one container until it is terminal or the pod stops.
func (e *Engine) runSlot(ctx context.Context, s *slot, adopted *instance) {
	defer e.wg.Done()
	// A container that was waiting in back-off when its supervisor was lost keeps its moment.
	e.mu.Lock()
	next := s.rec().NextStart
	e.mu.Unlock()
	if adopted == nil && next != nil {
		wait := time.Until(*next)
		if !e.sleep(ctx, wait, func() bool { return e.noRestartLocked(s) }) {
			e.mu.Lock()
			if e.noRestartLocked(s) {
				e.skipLocked(s)
			}
			e.mu.Unlock()
			return
		}
	}
	for {
		inst := adopted
		adopted = nil
		if inst == nil {
			e.mu.Lock()
			first := !s.rec().EverRan && s.status().RestartCount == 0
			e.mu.Unlock()
			var failed string
			// Dependencies and init order gate the first instance only (DEP-011).
			gated := e.waitUntil(ctx, func() bool {
				if e.noRestartLocked(s) {
					return true
				}
				if !first {
					return true
				}
				ok, f := e.gateLocked(s)
				failed = f
				return ok || f != ""
			})
			if !gated {
				return
			}
			e.mu.Lock()
			if e.noRestartLocked(s) {
				e.skipLocked(s)
				e.mu.Unlock()
				return
			}
			if failed != "" {
				e.dependencyFailedLocked(s, failed)
				e.mu.Unlock()
				return
			}
			e.mu.Unlock()
			var err error
			inst, err = e.startInstance(ctx, s)
			if err == errStopped {
				return
			}
			if err != nil {
				if !e.afterExit(ctx, s, nil, nil, err) {
					return
				}
				continue
			}
		}
		lifeCtx, cancel := context.WithCancel(ctx)
		inst.cancel = cancel
		go e.instanceLife(lifeCtx, s, inst)
		var ex reaper.ExitStatus
		select {
		case ex = <-inst.exit:
		case <-ctx.Done():
			cancel()
			inst.pidfd.close()
			return
		}
		cancel()
		inst.pidfd.close()
		if !e.afterExit(ctx, s, inst, &ex, nil) {
			return
		}
	}
}

// noRestartLocked reports whether the slot may no longer start instances: main and init
// containers once the stop sequence began, sidecars once their own stop step began.
func (e *Engine) noRestartLocked(s *slot) bool {
	if s.kind == KindSidecar {
		return s.stopStep || e.killingAll || e.forced || (e.terminating && !s.rec().EverRan)
	}
	return e.terminating
}

// skipLocked records a container that will never start because the pod is stopping.
func (e *Engine) skipLocked(s *slot) {
	r := s.rec()
	r.Terminal = true
	st := s.status()
	if st.State.Terminated != nil || st.RestartCount > 0 || st.LastState.Terminated != nil {
		// It ran before: keep its last terminated state as the final one.
		if st.State.Terminated == nil && st.LastState.Terminated != nil {
			t := *st.LastState.Terminated
			st.State = v1alpha1.ContainerState{Terminated: &t}
			if prev := r.LastStateBeforeRestart; prev != nil {
				// The cancelled restart started no instance: lastState is again the termination
				// before (STAT-008).
				st.LastState = *prev
			}
		}
		r.LastStateBeforeRestart = nil
		if x := r.PendingExit; x != nil {
			// Its last exit was to be restarted; the cancelled restart makes it terminal: it
			// counts for the pod's result in its place in event order (EXIT-014, EXIT-015).
			e.st.Exits = insertExit(e.st.Exits, *x)
			r.PendingExit = nil
		}
		e.commitLocked()
		return
	}
	reason := e.st.Stop.Reason
	st.State = v1alpha1.ContainerState{Skipped: &v1alpha1.ContainerStateSkipped{Reason: reason, Message: "the pod stopped before the container started"}}
	e.commitLocked(e.event(runtimev1.EventContainerSkipped, s, reason, "the pod stopped before the container started"))
}

// dependencyFailedLocked ends a main container whose dependency failed before its condition held.
func (e *Engine) dependencyFailedLocked(s *slot, msg string) {
	now := time.Now().UTC()
	r := s.rec()
	r.Terminal = true
	st := s.status()
	st.State = v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{
		Reason: v1alpha1.ReasonDependencyFailed, Message: msg, StartedAt: now, FinishedAt: now}}
	e.st.Exits = append(e.st.Exits, store.ExitRecord{Container: s.name, Kind: s.kind, Time: now, Reason: v1alpha1.ReasonDependencyFailed, Failure: true})
	e.commitLocked(e.event(runtimev1.EventDependencyFailed, s, v1alpha1.ReasonDependencyFailed, msg))
	e.evaluatePolicyLocked(s)
}

// startInstance creates and starts a new instance of the slot.
func (e *Engine) startInstance(ctx context.Context, s *slot) (*instance, error) {
	// At most CreateParallelism instances of the pod are between here and their start.
	release, err := e.gate.acquire(ctx, s.order)
	if err != nil {
		return nil, errStopped
	}
	defer release()
	e.mu.Lock()
	if e.noRestartLocked(s) {
		e.skipLocked(s)
		e.mu.Unlock()
		return nil, errStopped
	}
	s.creating = true
	s.rec().NextStart = nil
	st := s.status()
	n := st.RestartCount
	if st.ContainerID != "" || st.LastState.Terminated != nil || st.State.Terminated != nil {
		n++
	}
	id := s.instanceID(n)
	sandbox := e.st.Sandbox
	req, ver := e.instanceRequestLocked(s, id, n)
	e.mu.Unlock()

	// A stop that begins meanwhile ends the creation's waits (the backend's wait for a host
	// creation slot, which can be long on a crowded host): the instance would never start.
	cctx, cancelCreate := context.WithCancel(ctx)
	defer cancelCreate()
	go func() {
		if e.waitUntil(cctx, func() bool { return e.noRestartLocked(s) }) {
			cancelCreate()
		}
	}()
	pid, err := e.be.CreateInstance(cctx, e.info, sandbox, req)
	e.mu.Lock()
	for err == nil && e.awaitStopsLocked() && e.staleLocked(s, ver) {
		// UPD-012: an update changed the container while this instance was being created:
		// it never starts; the instance is created again from the new definition.
		e.mu.Unlock()
		e.discardCreated(ctx, id, pid)
		e.mu.Lock()
		req, ver = e.instanceRequestLocked(s, id, n)
		e.mu.Unlock()
		pid, err = e.be.CreateInstance(cctx, e.info, sandbox, req)
		e.mu.Lock()
	}
	if err != nil {
		s.creating = false
		stopped := e.noRestartLocked(s)
		if stopped {
			// Given up for the stop (or failed while it began): never started, nothing of it
			// recorded, as below.
			e.skipLocked(s)
		}
		e.mu.Unlock()
		e.be.DeleteInstance(context.WithoutCancel(ctx), id, e.info)
		if stopped {
			return nil, errStopped
		}
		return nil, fmt.Errorf("create container %s: %w", s.name, err)
	}
	if e.noRestartLocked(s) {
		// The stop began while the instance was being created: it never starts, and nothing of
		// it is recorded — no ContainerCreated once the stop sequence began, and no restart in
		// restartCount, which counts the instances started (RST-006). Once this check passed,
		// the start is under way: a stop waits for its ContainerStarted (MAIN-004, start.go).
		s.creating = false
		e.mu.Unlock()
		e.discardCreated(ctx, id, pid)
		e.mu.Lock()
		e.skipLocked(s)
		e.mu.Unlock()
		return nil, errStopped
	}
	// The init process is this supervisor's child (its subreaper) once runc create exited,
	// not reaped before the watcher below waits for it: the pid is still that process.
	inst := &instance{id: id, pid: pid, n: n, pidfd: openPidFD(pid)}
	inst.exit = e.watch(s, inst)
	s.inst = inst
	s.creating = false
	st = s.status()
	st.RestartCount = n
	st.ContainerID = id
	st.Started, st.Ready = false, false
	r := s.rec()
	r.ContainerID, r.PID, r.StartTime, r.Created, r.Running, r.StopReason = id, pid, procstat.StartTime(pid), time.Now().UTC(), false, ""
	ev := e.instEvent(runtimev1.EventContainerCreated, s, inst, "", "")
	ev.PID = pid
	e.commitLocked(ev)
	e.mu.Unlock()

	if err := e.be.StartInstance(ctx, id); err != nil {
		e.be.DeleteInstance(context.WithoutCancel(ctx), id, e.info)
		<-inst.exit
		inst.pidfd.close()
		e.mu.Lock()
		s.inst = nil
		e.wakeLocked() // a signal or a stop waiting for the start has nothing to wait for
		e.mu.Unlock()
		return nil, fmt.Errorf("start container %s: %w", s.name, err)
	}
	e.waitExecuted(ctx, pid)
	e.mu.Lock()
	e.commitLocked(e.runningLocked(s, inst, time.Now().UTC())...)
	e.mu.Unlock()
	return inst, nil
}

// runningLocked records that inst runs since now and returns the events to commit with it:
// ContainerStarted and, with no postStart hook and no startup probe, what makes the instance
// Started (and, without a readiness probe, Ready) at once, so that one state write records
// them all (instanceLife finds it Started and goes on to the probes).
func (e *Engine) runningLocked(s *slot, inst *instance, now time.Time) []*runtimev1.Event {
	inst.startedAt = now
	r := s.rec()
	r.Running = true
	r.EverRan = true
	r.Discarded = 0 // the next instance has the next number
	r.PendingExit = nil
	r.LastStateBeforeRestart = nil
	s.status().State = v1alpha1.ContainerState{Running: &v1alpha1.ContainerStateRunning{StartedAt: now}}
	ps := e.st.Pod.Status
	if ps.StartedAt == nil {
		ps.StartedAt = &now
		e.armDeadlineLocked()
	}
	if s.kind == KindMain && ps.Phase == v1alpha1.PodPending {
		ps.Phase = v1alpha1.PodRunning
	}
	ev := e.instEvent(runtimev1.EventContainerStarted, s, inst, "", "")
	ev.PID = inst.pid
	ev.Time = now
	evs := []*runtimev1.Event{ev}
	if lc := s.c.Lifecycle; (lc == nil || lc.PostStart == nil) && s.c.StartupProbe == nil {
		evs = append(evs, e.startedLocked(s, inst)...)
	}
	return evs
}

// InstancePrefix is the prefix of the OCI container IDs of every instance of a pod.
func InstancePrefix(uid string) string {
	u := strings.ReplaceAll(uid, "-", "")
	if len(u) > 12 {
		u = u[:12]
	}
	return u + "-"
}

// instanceID names the slot's instance number n as an OCI container, unique per pod UID,
// container and instance: <uid12>-<name>-<n>, n being the instance's restartCount, and
// <uid12>-<name>-<n>.<k> for the one created in place of k discarded ones of that number
// (store.Instance.Discarded). A container name has no dot: no two names collide (e.mu held).
func (s *slot) instanceID(n int32) string {
	id := fmt.Sprintf("%s%s-%d", InstancePrefix(s.e.info.UID), s.name, n)
	if k := s.rec().Discarded; k > 0 {
		id += fmt.Sprintf(".%d", k)
	}
	return id
}

// waitExecuted waits briefly until the container's init process has executed the user's
// program (it is no longer the OCI runtime's init), so that ContainerStarted is never early.
// Where the host process cannot tell (a sandbox), the runtime's start returning is all there is.
func (e *Engine) waitExecuted(ctx context.Context, pid int) {
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) {
		if inInit, tells := e.be.InRuntimeInit(ctx, pid); !tells || !inInit {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// afterExit records the end of an instance (or a failed start when startErr is set) and
// decides what happens next. It reports whether the slot should start another instance.
func (e *Engine) afterExit(ctx context.Context, s *slot, inst *instance, ex *reaper.ExitStatus, startErr error) bool {
	var oom uint64
	if inst != nil {
		if ex.Known || !inst.adopted {
			oom = e.be.OOMKills(inst.id, e.info)
		}
	}
	// The OCI container is deleted once the exit is recorded (deleting first would delay the
	// record, and the order of exits with it), and before any back-off wait.
	deleted := inst == nil
	deleteInst := func() {
		if !deleted {
			deleted = true
			e.be.DeleteInstance(context.WithoutCancel(ctx), inst.id, e.info)
		}
	}
	defer deleteInst()

	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now().UTC()
	st := s.status()
	r := s.rec()
	replaced := e.replacedLocked(s, inst) // an update replaced the instance (update.go)
	term := &v1alpha1.ContainerStateTerminated{FinishedAt: now, StartedAt: now}
	var ev *runtimev1.Event
	failed := true // a start that failed: neither an exitCode nor a signal (EXIT-012)
	if startErr != nil {
		term.Reason = v1alpha1.ReasonStartError
		term.Message = startErr.Error()
		ev = e.event(runtimev1.EventContainerExited, s, term.Reason, term.Message)
		n := st.RestartCount
		ev.RestartCount = &n
	} else {
		term.ContainerID = inst.id
		term.StartedAt = inst.startedAt
		if term.StartedAt.IsZero() {
			term.StartedAt = now
		}
		fillExit(term, ex, oom > 0)
		facts := exitFacts{kind: s.kind, status: term.Reason, statusMsg: term.Message,
			stopReason: r.StopReason, forced: e.forced, killReason: inst.killReason, killMsg: inst.killMsg}
		term.Reason, term.Message = terminatedReason(facts)
		failed = countsAsFailure(facts, term.ExitCode)
		ev = e.instEvent(runtimev1.EventContainerExited, s, inst, term.Reason, term.Message)
		ev.ExitCode = term.ExitCode
		ev.Signal = term.Signal
		ev.Time = now
		s.inst = nil
	}
	r.Running = false
	r.PID = 0
	st.Started, st.Ready = false, false
	if replaced {
		e.restartReplacedLocked(s, term, ev) // UPD-007, UPD-008: no policy, no back-off
		return true
	}

	restart := !e.noRestartLocked(s)
	if restart {
		switch s.policy {
		case v1alpha1.RestartPolicyNever:
			restart = false
		case v1alpha1.RestartPolicyOnFailure:
			restart = failed
		}
		if s.kind == KindSidecar {
			restart = true // SIDE-001
		}
	}
	var delay time.Duration
	if restart {
		if inst != nil && !inst.startedAt.IsZero() && now.Sub(inst.startedAt) >= fractionalSeconds(*e.st.Pod.Spec.RestartBackoff.ResetAfterSeconds) {
			r.Consecutive = 0
		}
		delay = backoffDelay(e.st.Pod.Spec.RestartBackoff, r.Consecutive)
		r.Consecutive++
		next := now.Add(delay)
		r.NextStart = &next
		if s.kind == KindMain || s.kind == KindInit {
			rec := exitRecord(s, term, failed, now)
			r.PendingExit = &rec // terminal after all if the stop sequence cancels the restart
		}
		r.StopReason = ""
		prev := st.LastState
		r.LastStateBeforeRestart = &prev
		st.LastState = v1alpha1.ContainerState{Terminated: term}
		waiting := ReasonBackOff
		st.State = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: waiting,
			Message: fmt.Sprintf("restarting in %s", delay)}}
		rev := e.instEvent(runtimev1.EventContainerRestarting, s, nil, "", fmt.Sprintf("back-off %s", delay))
		n := st.RestartCount
		rev.RestartCount = &n
		rev.ContainerID = term.ContainerID
		e.commitLocked(ev, rev)
	} else {
		st.State = v1alpha1.ContainerState{Terminated: term}
		r.Terminal = true
		r.Completed = !failed
		if s.kind == KindMain || s.kind == KindInit {
			e.st.Exits = append(e.st.Exits, exitRecord(s, term, failed, now))
		}
		e.commitLocked(ev)
		switch {
		case s.kind == KindMain:
			e.evaluatePolicyLocked(s)
		case s.kind == KindInit && failed && !e.terminating:
			reason := TerminationFailed
			e.beginStopLocked(ctx, reason, e.gracePeriod(), false, "") // INIT-003
		}
		return false
	}
	e.mu.Unlock()
	deleteInst()
	full := e.sleep(ctx, delay, func() bool { return e.noRestartLocked(s) })
	e.mu.Lock()
	if !full {
		if e.noRestartLocked(s) {
			e.skipLocked(s)
		}
		return false
	}
	return true
}

// backoffDelay is initial×factor^k, capped at max.
func backoffDelay(b *v1alpha1.Backoff, k int) time.Duration {
	d := *b.InitialSeconds
	for i := 0; i < k && d < *b.MaxSeconds; i++ {
		d *= *b.Factor
	}
	if d > *b.MaxSeconds {
		d = *b.MaxSeconds
	}
	return fractionalSeconds(d)
}

// fillExit turns a wait status into exitCode XOR signal, reason and coreDumped. oom says the
// kernel's OOM killer killed a process of the instance (its cgroup's oom_kill counter), which
// sets oomKilled however the instance's own process ended (STAT-004); the reason is OOMKilled
// only when SIGKILL ended that process (STAT-006): a shell that exits 1 after the OOM killer
// killed its child is oomKilled with reason Error.
func fillExit(t *v1alpha1.ContainerStateTerminated, ex *reaper.ExitStatus, oom bool) {
	t.OOMKilled = oom
	switch {
	case !ex.Known:
		t.Reason = ReasonExitStatusLost
		t.Message = "the instance ended while no supervisor was its parent; its exit status is unknown"
		return
	case ex.Status.Exited():
		c := int32(ex.Status.ExitStatus())
		t.ExitCode = &c
		t.Reason = v1alpha1.ReasonCompleted
		if c != 0 {
			t.Reason = v1alpha1.ReasonError
		}
	case ex.Status.Signaled():
		n := int32(ex.Status.Signal())
		t.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(n), Number: n}
		t.CoreDumped = ex.Status.CoreDump()
		t.Reason = v1alpha1.ReasonSignaled
	}
	if t.OOMKilled && ex.Status.Signaled() && ex.Status.Signal() == syscall.SIGKILL {
		t.Reason = v1alpha1.ReasonOOMKilled
	}
}

// signal records SignalSent for the slot's live instance and then sends it sig (sendSignal),
// without the lock.
func (e *Engine) signal(ctx context.Context, s *slot, sig syscall.Signal, why string) {
	// An instance being started (created, its program not running yet: the OCI runtime is
	// still setting the container up) gets the signal once its program runs, or not at all if
	// its start fails. Sent now, it would reach the runtime's init process and kill the
	// container before its program ran, turning a stop into a StartError. The wait is bounded
	// by the start itself; it ignores ctx so that a signal is never lost.
	e.waitUntil(context.WithoutCancel(ctx), func() bool { return !s.starting() })
	e.mu.Lock()
	inst := s.inst
	if inst == nil {
		e.mu.Unlock()
		return
	}
	n := int32(sig)
	ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", why)
	ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(n), Number: n}
	e.commitLocked(ev)
	e.mu.Unlock()
	if err := e.sendSignal(context.WithoutCancel(ctx), inst, sig); err != nil && err != errProcessGone {
		e.logf("signal %s %s: %v", inst.id, ev.Signal.Name, err)
	}
}

// killInstance stops an instance outside the stop sequence (failed liveness or startup probe,
// failed postStart hook): its stop signal, then SIGKILL after the grace period. An instance
// whose process has already ended is not killed: the probe or hook failed because it ended
// (an exec in a container that is no longer running), and its end is its own (STAT-006's
// reason of its exit, not the kill's: HOOK-008..010 kill a live instance).
func (e *Engine) killInstance(ctx context.Context, s *slot, inst *instance, reason, msg string) {
	e.mu.Lock()
	if s.inst != inst || s.rec().StopReason != "" || instanceExiting(inst) {
		e.mu.Unlock()
		return
	}
	inst.killReason, inst.killMsg = reason, msg
	e.mu.Unlock()
	sig := stopSignal(s.c)
	e.signal(ctx, s, sig, msg)
	e.mu.Lock()
	grace := secondsOf(e.gracePeriod()) // an update may change it (UPD-015)
	e.mu.Unlock()
	if !e.sleep(ctx, grace, func() bool { return s.inst != inst }) {
		return
	}
	e.signal(ctx, s, syscall.SIGKILL, msg+": grace period over")
}

func stopSignal(c *v1alpha1.Container) syscall.Signal {
	name := c.StopSignal
	if name == "" {
		name = v1alpha1.DefaultStopSignal
	}
	n, ok := v1alpha1.SignalNumber(name)
	if !ok {
		return syscall.SIGTERM
	}
	return syscall.Signal(n)
}

// exitRecord is the record of a terminal exit of s for the pod's result.
func exitRecord(s *slot, term *v1alpha1.ContainerStateTerminated, failed bool, now time.Time) store.ExitRecord {
	rec := store.ExitRecord{Container: s.name, Kind: s.kind, Time: now, ExitCode: term.ExitCode, Reason: term.Reason, Failure: failed}
	if term.Signal != nil {
		n := term.Signal.Number
		rec.Signal = &n
	}
	return rec
}

// insertExit inserts x into exits, kept in the order of their times (event order).
func insertExit(exits []store.ExitRecord, x store.ExitRecord) []store.ExitRecord {
	i := len(exits)
	for i > 0 && exits[i-1].Time.After(x.Time) {
		i--
	}
	return append(exits[:i], append([]store.ExitRecord{x}, exits[i:]...)...)
}
