package engine

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/reaper"
)

// Defer containers (docs/spec/defer.md). They run only in the stop sequence, one at a time:
// the BeforeStop defers in list order in step 0 (while the main containers still run), the
// AfterStop defers in list order in step 2 (once every main container exited). A defer's run
// is all of its attempts; its limit is the earliest of the run's start plus timeoutSeconds,
// the reserve point (BeforeStop) and the budget end. The run's start, every attempt and the
// run's end are persisted, so an adopting supervisor resumes at the first unfinished defer.

// Skip reasons of defer containers that never ran (state.skipped.reason).
const (
	// SkipForced: a forced stop gave up on the defers (FORCE-004).
	SkipForced = "Forced"
	// SkipAborted: an earlier defer with onFailure: Abort failed (DEFER-009).
	SkipAborted = "Aborted"
	// SkipBudgetExhausted: the defer's turn came at or after the limit of its run (DEFER-006).
	SkipBudgetExhausted = "BudgetExhausted"
)

// Reasons of the DeferCompleted condition when it is False (DEFER-012).
const (
	ReasonDeferFailed  = "DeferFailed"
	ReasonDeferSkipped = "DeferSkipped"
)

// EnvTerminationReason is the variable that tells a defer container why the pod stops.
const EnvTerminationReason = "PODSPEC_TERMINATION_REASON"

// Waiting reasons of a defer container before and between its attempts.
const (
	waitingDeferred = "Deferred"
	waitingStarting = "ContainerCreating"
)

// buildDeferSlots adds one slot per defer container, after the init and main slots.
func (e *Engine) buildDeferSlots() {
	p := &e.st.Pod
	st := p.Status
	if len(st.DeferContainerStatuses) != len(p.Spec.DeferContainers) {
		st.DeferContainerStatuses = make([]v1alpha1.ContainerStatus, len(p.Spec.DeferContainers))
		for i, d := range p.Spec.DeferContainers {
			st.DeferContainerStatuses[i] = v1alpha1.ContainerStatus{Name: d.Name, Image: d.Image, ImageID: e.st.Images[d.Name],
				State: v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: waitingDeferred, Message: "runs in the pod's stop sequence"}}}
		}
	}
	for i := range p.Spec.DeferContainers {
		d := &p.Spec.DeferContainers[i]
		c := &v1alpha1.Container{Name: d.Name, Image: d.Image, Command: d.Command, Args: d.Args,
			WorkingDir: d.WorkingDir, Env: d.Env, Resources: d.Resources, VolumeMounts: d.VolumeMounts}
		policy := d.RestartPolicy
		if policy == "" {
			policy = v1alpha1.RestartPolicyNever
		}
		e.addSlot(&slot{name: d.Name, kind: KindDefer, index: i, c: c, policy: policy})
	}
}

// deferSpec is the declared defer container of a defer slot.
func (e *Engine) deferSpec(s *slot) *v1alpha1.DeferContainer {
	return &e.st.Pod.Spec.DeferContainers[s.index]
}

func (e *Engine) deferPhase(s *slot) v1alpha1.DeferPhase {
	if p := e.deferSpec(s).Phase; p != "" {
		return p
	}
	return v1alpha1.DeferAfterStop
}

// deferOrder lists the defer slots in the order the stop sequence runs them: the BeforeStop
// defers in list order, then the AfterStop defers in list order.
func (e *Engine) deferOrder() []*slot {
	var before, after []*slot
	for _, s := range e.slots {
		if s.kind != KindDefer {
			continue
		}
		if e.deferPhase(s) == v1alpha1.DeferBeforeStop {
			before = append(before, s)
		} else {
			after = append(after, s)
		}
	}
	return append(before, after...)
}

// runDefers is the defer step of one phase: each defer of the phase whose run has not ended
// runs in turn (a defer after a failed onFailure: Abort one is skipped instead).
func (e *Engine) runDefers(phase v1alpha1.DeferPhase) func(ctx context.Context) {
	return func(ctx context.Context) {
		for _, s := range e.deferOrder() {
			if e.deferPhase(s) != phase {
				continue
			}
			if ctx.Err() != nil {
				return // forced or budget over: endDefers records the rest
			}
			e.mu.Lock()
			if s.rec().Terminal {
				e.mu.Unlock()
				continue
			}
			if by := e.abortedByLocked(s); by != "" {
				e.skipDeferLocked(s, SkipAborted, fmt.Sprintf("defer %s failed and has onFailure: Abort", by))
				e.mu.Unlock()
				continue
			}
			e.mu.Unlock()
			e.runDefer(ctx, s)
		}
	}
}

// abortedByLocked names the earlier defer with onFailure: Abort whose run failed, if any.
func (e *Engine) abortedByLocked(s *slot) string {
	for _, o := range e.deferOrder() {
		if o == s {
			return ""
		}
		abort := e.deferSpec(o).OnFailure == v1alpha1.DeferAbort
		if abort && e.deferFailedLocked(o) {
			return o.name
		}
	}
	return ""
}

// deferFailedLocked reports whether the defer's run ended as a failure.
func (e *Engine) deferFailedLocked(s *slot) bool {
	return s.rec().Terminal && !s.rec().Completed && s.status().State.Skipped == nil
}

// deferLimitLocked is the limit of a defer's run that started at start (nil: not started yet):
// the earliest of start plus timeoutSeconds, the reserve point (BeforeStop) and the budget end.
// The run starts when its first attempt's process runs (ContainerStarted), so the time spent
// creating the container does not count against timeoutSeconds.
func (e *Engine) deferLimitLocked(s *slot, start *time.Time) time.Time {
	end := e.st.Stop.Deadline
	limit := end
	if e.deferPhase(s) == v1alpha1.DeferBeforeStop {
		window := minimumStopWindow
		if budget := end.Sub(e.st.Stop.RequestedAt); budget < window {
			window = budget
		}
		limit = end.Add(-window)
	}
	if t := e.deferSpec(s).TimeoutSeconds; t != nil && start != nil {
		if l := start.Add(secondsOf(*t)); l.Before(limit) {
			limit = l
		}
	}
	return limit
}

// skipDeferLocked records a defer that will never start.
func (e *Engine) skipDeferLocked(s *slot, reason, msg string) {
	r := s.rec()
	r.Terminal = true
	r.NextStart = nil
	s.status().State = v1alpha1.ContainerState{Skipped: &v1alpha1.ContainerStateSkipped{Reason: reason, Message: msg}}
	e.commitLocked(e.event(runtimev1.EventContainerSkipped, s, reason, msg))
}

// endRunLocked records the end of a defer's run: its last attempt's termination is its final
// state, and the run succeeded when that attempt exited 0.
func (e *Engine) endRunLocked(s *slot, term *v1alpha1.ContainerStateTerminated, ok bool) {
	r := s.rec()
	r.Terminal = true
	r.Completed = ok
	r.NextStart = nil
	st := s.status()
	st.State = v1alpha1.ContainerState{Terminated: term}
	e.commitLocked()
}

// notStartedLocked ends a defer whose next attempt cannot start (ctx over or limit reached):
// skipped when no attempt ever ran, else failed with its last attempt's termination.
func (e *Engine) notStartedLocked(s *slot, skipReason, msg string) {
	st := s.status()
	if last := st.LastState.Terminated; last != nil {
		t := *last
		e.endRunLocked(s, &t, false)
		return
	}
	e.skipDeferLocked(s, skipReason, msg)
}

// stopSkipReasonLocked is why a defer that cannot start now is skipped.
func (e *Engine) stopSkipReasonLocked() (string, string) {
	if e.forced {
		return SkipForced, "a forced stop runs no defer containers"
	}
	return SkipBudgetExhausted, "its turn came at or after the limit of its run"
}

// runDefer runs one defer's run to its end: attempts (a fresh one, or the instance an
// adopting supervisor found), each bounded by the run's limit, retried after the pod's
// back-off under restartPolicy OnFailure while a retry can start before the limit.
func (e *Engine) runDefer(ctx context.Context, s *slot) {
	bg := context.WithoutCancel(ctx)
	e.mu.Lock()
	r := s.rec()
	if r.RunStart == nil && s.inst == nil && s.status().LastState.Terminated == nil {
		if !time.Now().Before(e.deferLimitLocked(s, nil)) {
			e.skipDeferLocked(s, SkipBudgetExhausted, "its turn came at or after the limit of its run")
			e.mu.Unlock()
			return
		}
		s.status().State = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: waitingStarting}}
		e.commitLocked() // DEFER-013: persisted before the defer starts
	}
	e.mu.Unlock()
	for {
		e.mu.Lock()
		inst := s.inst // an instance found alive (or lost) by an adopting supervisor
		next := r.NextStart
		e.mu.Unlock()
		if inst == nil {
			if next != nil {
				// Waiting in back-off (possibly from before a supervisor loss): keep its moment.
				e.deferWait(ctx, s, *next, nil)
			}
			e.mu.Lock()
			now := time.Now()
			if ctx.Err() != nil || !now.Before(e.deferLimitLocked(s, r.RunStart)) || (next != nil && now.Before(*next)) {
				reason, msg := e.stopSkipReasonLocked()
				e.notStartedLocked(s, reason, msg)
				e.mu.Unlock()
				return
			}
			e.mu.Unlock()
			var err error
			inst, err = e.startDefer(ctx, s)
			if err == errCut {
				e.endKilledDefer(bg, s, inst) // the run ended with the kill at the reserve point
				return
			}
			if err == errStopped {
				e.mu.Lock()
				reason, msg := e.stopSkipReasonLocked()
				e.notStartedLocked(s, reason, msg)
				e.mu.Unlock()
				return
			}
			if err != nil {
				e.mu.Lock()
				now := time.Now().UTC()
				term := &v1alpha1.ContainerStateTerminated{Reason: v1alpha1.ReasonStartError, Message: err.Error(), StartedAt: now, FinishedAt: now}
				ev := e.event(runtimev1.EventContainerExited, s, term.Reason, term.Message)
				n := s.status().RestartCount
				ev.RestartCount = &n
				e.commitLocked(ev)
				again := e.afterDeferFailureLocked(ctx, s, term)
				e.mu.Unlock()
				if !again {
					return
				}
				continue
			}
		}
		term, lost, killed, detached := e.superviseDefer(ctx, s, inst)
		if detached {
			return // the run ended with the kill at the reserve point
		}
		e.be.DeleteInstance(bg, inst.id, e.info)
		e.mu.Lock()
		switch {
		case lost:
			// DEFER-015: an attempt that ended unobserved does not count; start a new one
			// while the limit allows, else the run failed (DEFER-007).
			if ctx.Err() == nil && time.Now().Before(e.deferLimitLocked(s, r.RunStart)) {
				s.status().LastState = v1alpha1.ContainerState{Terminated: term}
				s.status().State = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: waitingStarting, Message: "its previous attempt ended unobserved"}}
				e.commitLocked()
				e.mu.Unlock()
				continue
			}
			e.endRunLocked(s, term, false)
		case term.ExitCode != nil && *term.ExitCode == 0 && !killed:
			e.endRunLocked(s, term, true)
		case killed:
			e.endRunLocked(s, term, false) // killed at its limit or by a forced stop: no retry
		default:
			if e.afterDeferFailureLocked(ctx, s, term) {
				e.mu.Unlock()
				continue
			}
		}
		e.mu.Unlock()
		return
	}
}

// afterDeferFailureLocked decides what follows a failed attempt: a retry after the pod's
// back-off when the policy is OnFailure and the retry can start before the limit (it reports
// true after recording the back-off), else the end of the run as failed.
func (e *Engine) afterDeferFailureLocked(ctx context.Context, s *slot, term *v1alpha1.ContainerStateTerminated) bool {
	r := s.rec()
	st := s.status()
	if s.policy == v1alpha1.RestartPolicyOnFailure && ctx.Err() == nil {
		delay := backoffDelay(e.st.Pod.Spec.RestartBackoff, r.Consecutive)
		next := time.Now().UTC().Add(delay)
		limit := e.deferLimitLocked(s, r.RunStart)
		if next.Before(limit) {
			r.Consecutive++
			r.NextStart = &next
			st.LastState = v1alpha1.ContainerState{Terminated: term}
			st.State = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: ReasonBackOff,
				Message: fmt.Sprintf("retrying in %s", delay)}}
			ev := e.event(runtimev1.EventContainerRestarting, s, "", fmt.Sprintf("back-off %s", delay))
			n := st.RestartCount
			ev.RestartCount = &n
			ev.ContainerID = term.ContainerID
			e.commitLocked(ev)
			return true
		}
	}
	e.endRunLocked(s, term, false)
	return false
}

// deferWait waits until the moment until, the exit of an attempt (when exit is not nil), the
// limit of the defer's run (it may move earlier) or the end of ctx, whichever comes first. It
// returns the exit status and whether the exit arrived. An exit that has already arrived wins
// over a limit that has passed too: an attempt that ended before anyone looked (an adopting
// supervisor found it lost, or it exited just as its limit came) is recorded as it ended,
// never "killed" at a limit that passed after its end (SUP-005: ExitStatusLost, not Timeout).
func (e *Engine) deferWait(ctx context.Context, s *slot, until time.Time, exit <-chan reaper.ExitStatus) (reaper.ExitStatus, bool) {
	for {
		e.mu.Lock()
		limit := e.deferLimitLocked(s, s.rec().RunStart)
		reserve := e.deferPhase(s) == v1alpha1.DeferBeforeStop && e.reserveReached
		ch := e.changed
		e.mu.Unlock()
		if until.After(limit) {
			until = limit
		}
		if ctx.Err() != nil || reserve || !time.Now().Before(until) {
			select {
			case ex := <-exit: // a nil exit never is ready
				return ex, true
			default:
				return reaper.ExitStatus{}, false
			}
		}
		t := time.NewTimer(time.Until(until))
		select {
		case ex := <-exit:
			t.Stop()
			return ex, true
		case <-t.C:
		case <-ch:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// superviseDefer waits for an attempt to exit, killing it with SIGKILL at the limit of the
// run or when ctx ends (budget end, forced stop), and records its end. lost says the attempt
// ended unobserved; killed that the runtime killed it.
//
// A BeforeStop defer killed at the reserve point is detached: its run ends with the kill
// (docs/spec/ordering.md: a run ends when it was killed at its limit), the run is recorded
// as failed at once, and the exit is awaited and recorded in the background, so that the
// main containers' stop signals are not delayed by the dying defer (STOP-006, STOP-008).
func (e *Engine) superviseDefer(ctx context.Context, s *slot, inst *instance) (term *v1alpha1.ContainerStateTerminated, lost, killed, detached bool) {
	bg := context.WithoutCancel(ctx)
	ex, got := e.deferWait(ctx, s, time.Now().Add(365*24*time.Hour), inst.exit)
	if !got {
		e.mu.Lock()
		reason, why := v1alpha1.ReasonTimeout, "defer reached the limit of its run"
		if e.forced {
			reason, why = v1alpha1.ReasonForced, "forced stop"
		}
		if s.rec().StopReason == "" || e.forced {
			s.rec().StopReason = reason
		}
		atReserve := !e.forced && ctx.Err() == nil && e.deferPhase(s) == v1alpha1.DeferBeforeStop &&
			(e.reserveReached || !time.Now().Before(e.deferLimitLocked(s, nil)))
		if atReserve {
			// SignalSent and the end of the run are recorded now; the kill itself (a runc
			// call) and the exit happen in the background.
			n := int32(syscall.SIGKILL)
			ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", why)
			ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(n), Number: n}
			s.rec().Terminal = true
			s.rec().Completed = false
			e.commitLocked(ev)
			e.mu.Unlock()
			e.wg.Add(1)
			go func() {
				defer e.wg.Done()
				e.killNow(bg, inst)
				e.endKilledDefer(bg, s, inst)
			}()
			return nil, false, true, true
		}
		e.mu.Unlock()
		e.signal(bg, s, syscall.SIGKILL, why)
		ex = e.awaitKilled(bg, inst)
	}
	term, lost, killed = e.recordDeferExit(s, inst, ex)
	return term, lost, killed, false
}

// endKilledDefer records the exit of a defer attempt sent SIGKILL at the limit of its run, whose
// run's end was recorded with the kill, once the exit came, and deletes the attempt.
func (e *Engine) endKilledDefer(ctx context.Context, s *slot, inst *instance) {
	term, _, _ := e.recordDeferExit(s, inst, e.awaitKilled(ctx, inst))
	e.be.DeleteInstance(ctx, inst.id, e.info)
	e.mu.Lock()
	e.endRunLocked(s, term, false)
	e.mu.Unlock()
}

// errCut marks a defer attempt killed at the reserve point while its start was under way.
var errCut = errors.New("killed at the limit of its run while being started")

// cutBeforeStopStartsLocked ends, at the reserve point, the run of every BeforeStop defer whose
// attempt is being started (created, the OCI runtime's start under way): the reserve point is
// the limit of its run (DEFER-005), and the main containers' stop signals, due then (STOP-006),
// come only after its run ended (HB-009). Its start may last seconds on a loaded host, past the
// budget end (seed 1114, docs/conformance.md), so the run is not left to begin: the kill's
// SignalSent and the run's end (Timeout, STAT-006) are recorded here, the caller sends the
// SIGKILLs it returns to the attempts' processes (the OCI runtime's init; the start then fails,
// or the program dies as it begins), and each defer's goroutine records the exit once its start
// returned (startDefer's errCut).
func (e *Engine) cutBeforeStopStartsLocked() []*instance {
	if e.forced {
		return nil // the forced stop kills them (Forced)
	}
	var cut []*instance
	for _, s := range e.slots {
		inst := s.inst
		if s.kind != KindDefer || inst == nil || !inst.inStart || inst.cut || s.rec().Terminal || e.deferPhase(s) != v1alpha1.DeferBeforeStop {
			continue
		}
		inst.cut = true
		s.rec().StopReason = v1alpha1.ReasonTimeout
		s.rec().Terminal = true
		s.rec().Completed = false
		n := int32(syscall.SIGKILL)
		ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", "defer reached the limit of its run while being started")
		ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(n), Number: n}
		e.commitLocked(ev)
		cut = append(cut, inst)
	}
	return cut
}

// killNow sends SIGKILL to an instance's process without recording an event.
func (e *Engine) killNow(ctx context.Context, inst *instance) {
	if err := e.sendSignal(ctx, inst, syscall.SIGKILL); err != nil && err != errProcessGone {
		e.logf("signal %s SIGKILL: %v", inst.id, err)
	}
}

// awaitKilled waits for the exit of an instance that was sent SIGKILL. When the kill has not
// taken effect after 5 s, it sends SIGKILL once more, without a record, and keeps waiting. It
// goes through sendSignal like every signal: the pidfd reaches the instance's process or
// nobody, where a kill by pid could reach a process that reused the pid of an adopted one.
func (e *Engine) awaitKilled(ctx context.Context, inst *instance) reaper.ExitStatus {
	select {
	case ex := <-inst.exit:
		return ex
	case <-time.After(5 * time.Second):
		e.killNow(ctx, inst)
		return <-inst.exit
	}
}

// recordDeferExit records the end of a defer attempt (ContainerExited) and returns its
// termination; lost says it ended unobserved, killed that the runtime killed it.
func (e *Engine) recordDeferExit(s *slot, inst *instance, ex reaper.ExitStatus) (term *v1alpha1.ContainerStateTerminated, lost, killed bool) {
	inst.pidfd.close()
	var oom uint64
	if ex.Known || !inst.adopted {
		oom = e.be.OOMKills(inst.id, e.info)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now().UTC()
	r := s.rec()
	term = &v1alpha1.ContainerStateTerminated{ContainerID: inst.id, StartedAt: inst.startedAt, FinishedAt: now}
	if term.StartedAt.IsZero() {
		term.StartedAt = now
	}
	fillExit(term, &ex, oom > 0)
	term.Reason, term.Message = terminatedReason(exitFacts{kind: s.kind, status: term.Reason, statusMsg: term.Message,
		stopReason: r.StopReason, forced: e.forced})
	lost = term.Reason == ReasonExitStatusLost
	killed = r.StopReason != ""
	ev := e.instEvent(runtimev1.EventContainerExited, s, inst, term.Reason, term.Message)
	ev.ExitCode = term.ExitCode
	ev.Signal = term.Signal
	ev.Time = now
	s.inst = nil
	r.Running = false
	r.PID = 0
	r.StopReason = ""
	s.status().Started, s.status().Ready = false, false
	e.commitLocked(ev)
	return term, lost, killed
}

// startDefer creates and starts a new attempt of a defer container, with the termination
// reason in its environment. errStopped means ctx ended, or the limit of the run passed,
// before it started; errCut that it was killed at the reserve point while its start was under
// way (cutBeforeStopStartsLocked), with the instance, whose exit the caller records.
func (e *Engine) startDefer(ctx context.Context, s *slot) (*instance, error) {
	bg := context.WithoutCancel(ctx)
	e.mu.Lock()
	s.creating = true
	st := s.status()
	n := st.RestartCount
	if st.ContainerID != "" || st.LastState.Terminated != nil || st.State.Terminated != nil {
		n++
	}
	id := s.instanceID(n)
	sandbox := e.st.Sandbox
	env := []string{EnvTerminationReason + "=" + e.st.Stop.Reason}
	e.mu.Unlock()
	if e.adopt {
		// A previous supervisor may have created this instance without recording it.
		e.be.DeleteInstance(bg, id, e.info)
	}
	c := s.c
	pid, err := e.be.CreateInstance(bg, e.info, sandbox, &InstanceRequest{ID: id, Kind: KindDefer, Container: c,
		LogPath: e.pod.LogPath(s.name, n), ExtraEnv: env})
	e.mu.Lock()
	e.awaitStopsLocked() // a forced stop waiting for the starts under way comes first (MAIN-004)
	if err != nil {
		s.creating = false
		e.commitLocked()
		e.mu.Unlock()
		e.be.DeleteInstance(bg, id, e.info)
		if ctx.Err() != nil {
			return nil, errStopped
		}
		return nil, fmt.Errorf("create container %s: %w", s.name, err)
	}
	inst := &instance{id: id, pid: pid, n: n, pidfd: openPidFD(pid)} // a child, as in startInstance
	inst.exit = e.watch(s, inst)
	s.inst = inst
	s.creating = false
	st = s.status()
	st.RestartCount = n
	st.ContainerID = id
	r := s.rec()
	r.ContainerID, r.PID, r.StartTime, r.Created, r.Running, r.StopReason = id, pid, procstat.StartTime(pid), time.Now().UTC(), false, ""
	ev := e.instEvent(runtimev1.EventContainerCreated, s, inst, "", "")
	ev.PID = pid
	e.commitLocked(ev)
	// Creating can take a while: an attempt whose limit passed meanwhile is not started.
	late := !time.Now().Before(e.deferLimitLocked(s, r.RunStart)) || (e.deferPhase(s) == v1alpha1.DeferBeforeStop && e.reserveReached)
	if ctx.Err() != nil || late {
		s.inst = nil
		r.PID = 0
		e.commitLocked()
		e.mu.Unlock()
		e.be.DeleteInstance(bg, id, e.info)
		<-inst.exit
		inst.pidfd.close()
		return nil, errStopped
	}
	inst.inStart = true
	e.mu.Unlock() // a forced stop now waits for the ContainerStarted (start.go)
	err = e.be.StartInstance(bg, id)
	e.mu.Lock()
	inst.inStart = false
	cut := inst.cut
	e.mu.Unlock()
	if cut {
		return inst, errCut // killed at the reserve point meanwhile: its end is the kill's
	}
	if err != nil {
		e.be.DeleteInstance(bg, id, e.info)
		<-inst.exit
		inst.pidfd.close()
		e.mu.Lock()
		s.inst = nil
		r.PID = 0
		e.commitLocked()
		e.mu.Unlock()
		return nil, fmt.Errorf("start container %s: %w", s.name, err)
	}
	e.waitExecuted(ctx, pid)
	now := time.Now().UTC()
	e.mu.Lock()
	inst.startedAt = now
	r.Running = true
	r.EverRan = true
	r.Discarded = 0 // the next attempt has the next number
	if r.RunStart == nil {
		r.RunStart = &now
	}
	st.State = v1alpha1.ContainerState{Running: &v1alpha1.ContainerStateRunning{StartedAt: now}}
	ev = e.instEvent(runtimev1.EventContainerStarted, s, inst, "", "")
	ev.PID = pid
	ev.Time = now
	e.commitLocked(ev)
	e.mu.Unlock()
	return inst, nil
}

// endDefers runs after the stop steps: every defer whose run has not ended — the budget ended
// or the stop was forced — is ended. A live attempt (one an adopting supervisor found) is
// killed and recorded; a defer that never started is skipped with the reason.
func (e *Engine) endDefers(budget context.Context) {
	for _, s := range e.deferOrder() {
		e.mu.Lock()
		if s.rec().Terminal {
			e.mu.Unlock()
			continue
		}
		inst := s.inst
		e.mu.Unlock()
		if inst != nil {
			term, _, _, _ := e.superviseDefer(budget, s, inst)
			e.be.DeleteInstance(context.WithoutCancel(budget), inst.id, e.info)
			e.mu.Lock()
			e.endRunLocked(s, term, false)
			e.mu.Unlock()
			continue
		}
		e.mu.Lock()
		if by := e.abortedByLocked(s); by != "" {
			e.skipDeferLocked(s, SkipAborted, fmt.Sprintf("defer %s failed and has onFailure: Abort", by))
		} else {
			reason, msg := e.stopSkipReasonLocked()
			if reason == SkipBudgetExhausted {
				msg = "the grace budget ended before its turn"
			}
			e.notStartedLocked(s, reason, msg)
		}
		e.mu.Unlock()
	}
}

// skipDefersLocked records every defer that has not run as skipped, for a pod that ends
// without a stop sequence (its sandbox could not be set up).
func (e *Engine) skipDefersLocked(reason, msg string) {
	for _, s := range e.deferOrder() {
		if !s.rec().Terminal {
			e.skipDeferLocked(s, reason, msg)
		}
	}
}

// deferCompletedLocked sets the condition DeferCompleted of a pod with defer containers when
// it becomes terminal (DEFER-012).
func (e *Engine) deferCompletedLocked(now time.Time) {
	var failed, skipped []string
	n := 0
	for _, s := range e.slots {
		if s.kind != KindDefer {
			continue
		}
		n++
		switch {
		case s.status().State.Skipped != nil:
			skipped = append(skipped, s.name)
		case !s.rec().Completed:
			failed = append(failed, s.name)
		}
	}
	if n == 0 {
		return
	}
	c := v1alpha1.PodCondition{Type: v1alpha1.PodDeferCompleted, Status: v1alpha1.ConditionTrue, LastTransitionTime: &now}
	switch {
	case len(failed) > 0:
		c.Status, c.Reason, c.Message = v1alpha1.ConditionFalse, ReasonDeferFailed, fmt.Sprintf("failed: %v", failed)
	case len(skipped) > 0:
		c.Status, c.Reason, c.Message = v1alpha1.ConditionFalse, ReasonDeferSkipped, fmt.Sprintf("skipped: %v", skipped)
	}
	st := e.st.Pod.Status
	for i := range st.Conditions {
		if st.Conditions[i].Type == c.Type {
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}
