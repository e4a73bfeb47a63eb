package engine

import (
	"context"
	"sync"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// Termination reasons: why a pod's stop sequence began (status.reason, PodTerminating.reason).
const (
	TerminationCompleted        = "Completed"
	TerminationFailed           = "Failed"
	TerminationStopped          = "Stopped"
	TerminationDeadlineExceeded = "DeadlineExceeded"
	TerminationEvicted          = "Evicted"
	TerminationForced           = "Forced"
)

// minimumStopWindow is what main containers always get between their stop signal and SIGKILL
// (or the whole budget when it is shorter).
const minimumStopWindow = time.Duration(v1alpha1.MinimumStopWindowSeconds) * time.Second

// stopStep is one step of the stop sequence. Steps run in order, each bounded by the pod's
// single grace budget (ctx ends when the budget ends or the stop is forced). The index of the
// first unfinished step is persisted, so an adopting supervisor resumes there.
type stopStep struct {
	name string
	run  func(ctx context.Context)
}

// Indexes of the stop steps (persisted in StopState.Step).
const (
	stepBeforeStopDefers = iota
	stepMainContainers
	stepAfterStopDefers
	stepSidecars
)

// stopSteps is the stop sequence of the spec (docs/spec/stop.md). The defer steps run the
// BeforeStop and AfterStop defer containers (defer.go); with no defers they finish at once.
func (e *Engine) stopSteps() []stopStep {
	steps := []stopStep{
		stepBeforeStopDefers: {name: "BeforeStopDefers", run: e.runDefers(v1alpha1.DeferBeforeStop)},
		stepMainContainers:   {name: "MainContainers", run: e.stopMains},
		stepAfterStopDefers:  {name: "AfterStopDefers", run: e.runDefers(v1alpha1.DeferAfterStop)},
		stepSidecars:         {name: "Sidecars", run: e.stopSidecars},
	}
	return steps
}

// beginStopLocked starts the stop sequence with a termination reason, or escalates the one
// running (force, or an earlier budget end). id, when not empty, is the ID of the stop request
// (StopOnce), remembered with the stop. pre are events recorded before PodTerminating.
func (e *Engine) beginStopLocked(ctx context.Context, reason string, grace int64, force bool, id string, pre ...*runtimev1.Event) {
	if !e.terminating || (force && !e.forced) {
		e.awaitStartsLocked(force) // MAIN-004, MAIN-005: a start under way ends first (start.go)
	}
	if e.st.Pod.Status.FinishedAt != nil {
		return
	}
	now := time.Now().UTC()
	deadline := stopDeadline(now, grace)
	if e.terminating {
		if id != "" {
			e.st.Stop.RequestIDs = append(e.st.Stop.RequestIDs, id)
			if n := len(e.st.Stop.RequestIDs); n > maxStopIDs {
				e.st.Stop.RequestIDs = e.st.Stop.RequestIDs[n-maxStopIDs:]
			}
		}
		if force && !e.forced {
			e.st.Stop.Force = true
			e.forced = true
			e.commitLocked(pre...)
			if e.stopCancel != nil {
				e.stopCancel()
			}
			return
		}
		if deadline.Before(e.st.Stop.Deadline) {
			e.st.Stop.Deadline = deadline
			e.commitLocked(pre...)
			if e.stopCtx != nil {
				e.startTimersLocked()
			}
			return
		}
		e.commitLocked(pre...)
		return
	}
	e.terminating = true
	e.forced = force
	e.st.Stop = &store.StopState{RequestedAt: now, Reason: reason, Deadline: deadline, Force: force}
	if id != "" {
		e.st.Stop.RequestIDs = []string{id}
	}
	e.st.Pod.Status.Reason = reason
	for _, s := range e.slots {
		if s.kind != KindSidecar {
			s.rec().NextStart = nil
		}
	}
	e.commitLocked(append(pre, e.event(runtimev1.EventPodTerminating, nil, reason, ""))...)
	if e.started {
		e.startStopLocked(ctx)
	}
}

// resumeStopLocked continues a persisted stop after adoption, with the same reason and budget.
func (e *Engine) resumeStopLocked() {
	e.terminating = true
	e.forced = e.st.Stop.Force
	e.startStopLocked(context.Background())
}

func (e *Engine) startStopLocked(ctx context.Context) {
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.stopCtx, e.stopCancel = sctx, cancel
	if e.forced {
		cancel()
	} else {
		e.startTimersLocked()
	}
	go e.stopSequence(context.WithoutCancel(ctx), sctx)
}

// startTimersLocked arms the reserve point and the budget end of the current budget. Timers
// of an earlier (later-ending) budget may still fire; they find their work done.
func (e *Engine) startTimersLocked() {
	end := e.st.Stop.Deadline
	window := minimumStopWindow
	if budget := end.Sub(e.st.Stop.RequestedAt); budget < window {
		window = budget
	}
	reserve := end.Add(-window)
	ctx := e.stopCtx
	go func() {
		if !sleepCtx(ctx, time.Until(reserve)) {
			return
		}
		e.mu.Lock()
		if !e.reserveReached {
			e.reserveReached = true
			e.commitLocked()
		}
		cut := e.cutBeforeStopStartsLocked()
		e.mu.Unlock()
		for _, inst := range cut {
			e.killNow(context.WithoutCancel(ctx), inst)
		}
	}()
	go func() {
		if sleepCtx(ctx, time.Until(end)) {
			e.stopCancel()
		}
	}()
}

// stopSequence runs the steps from the persisted one, then kills whatever still runs, waits for
// every container goroutine, and finishes the pod. The sequence's timed actions never wait for
// a step that blocks in the OCI runtime (a container being created or started takes seconds on
// a loaded host): a step still running at its limit — the reserve point for the BeforeStop
// defers (DEFER-005), the budget end for every step — is left to end in the background, where
// it finds its limit passed and starts nothing, and the sequence goes on at once: with the main
// containers' stop signals at the reserve point (STOP-006), with SIGKILL at the budget end
// (STOP-010).
func (e *Engine) stopSequence(ctx, budget context.Context) {
	steps := e.stopSteps()
	e.mu.Lock()
	first := e.st.Stop.Step
	e.mu.Unlock()
	var left sync.WaitGroup // the steps, also those left at their limit
	for i := first; i < len(steps) && budget.Err() == nil; i++ {
		e.runStep(budget, i, steps[i], &left)
		e.mu.Lock()
		if budget.Err() == nil {
			e.st.Stop.Step = i + 1
			e.commitLocked()
		}
		e.mu.Unlock()
	}
	// Budget over, forced, or all steps done: SIGKILL whatever still runs, until it is gone.
	e.mu.Lock()
	e.killingAll = true
	e.commitLocked()
	e.mu.Unlock()
	// A step left at the budget end kills its own defer attempt (superviseDefer), and may still
	// be creating one: the rest is killed now, the defers once every step ended.
	e.killLive(ctx, false)
	left.Wait()
	// Defers that did not run to their end (budget over or forced) are killed or skipped.
	e.endDefers(budget)
	for !e.waitUntil(timeoutCtx(ctx, time.Second), func() bool { return !e.anyBusyLocked() }) {
		e.killLive(ctx, true)
	}
	e.wg.Wait()
	e.finish(ctx)
}

// runStep runs step i of the stop sequence until it ends or its limit comes: the budget end,
// and for the BeforeStop defers the reserve point, once no BeforeStop defer's run is still
// pending then. Every such run must have ended before the main containers' stop signals
// (HB-009), and the reserve point ends it: an attempt whose start is under way is killed there
// (cutBeforeStopStartsLocked), a running one by its own goroutine (superviseDefer), each
// recording the run's end with the kill, so the wait lasts no longer than that record; a
// creation that returns late is deleted unstarted and holds nothing. A step left at its limit
// goes on in the background until its backend call returns (left counts it).
func (e *Engine) runStep(budget context.Context, i int, step stopStep, left *sync.WaitGroup) {
	ended := false
	left.Add(1)
	go func() {
		defer left.Done()
		step.run(budget)
		e.mu.Lock()
		ended = true
		e.wakeLocked()
		e.mu.Unlock()
	}()
	e.waitUntil(budget, func() bool {
		return ended || (i == stepBeforeStopDefers && e.reserveReached && !e.beforeStopRunPendingLocked())
	})
}

// beforeStopRunPendingLocked reports whether a BeforeStop defer has an instance (created and
// being started, or running) whose run's end is not recorded yet (a late creation drops its
// instance before it is deleted).
func (e *Engine) beforeStopRunPendingLocked() bool {
	for _, s := range e.slots {
		if s.kind == KindDefer && s.inst != nil && !s.rec().Terminal && e.deferPhase(s) == v1alpha1.DeferBeforeStop {
			return true
		}
	}
	return false
}

// killLive sends SIGKILL to every live instance (defers only if defers), each at once: an
// instance being started gets it once its program runs (signal), without holding back the
// others.
func (e *Engine) killLive(ctx context.Context, defers bool) {
	e.mu.Lock()
	var live []*slot
	for _, s := range e.slots {
		if s.inst != nil && (defers || s.kind != KindDefer) {
			if s.rec().StopReason == "" {
				s.rec().StopReason = e.instanceStopReasonLocked()
			}
			live = append(live, s)
		}
	}
	why := "grace period over"
	if e.forced {
		why = "forced stop"
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range live {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.signal(ctx, s, syscall.SIGKILL, why)
		}()
	}
	wg.Wait()
}

// instanceStopReasonLocked is the terminated reason of an instance the stop sequence stops.
func (e *Engine) instanceStopReasonLocked() string {
	switch e.st.Stop.Reason {
	case TerminationCompleted, TerminationFailed:
		return v1alpha1.ReasonStoppedByPolicy
	case TerminationDeadlineExceeded:
		return v1alpha1.ReasonDeadlineExceeded
	case TerminationEvicted:
		return v1alpha1.ReasonEvicted
	case TerminationForced:
		return v1alpha1.ReasonForced
	}
	return v1alpha1.ReasonStopped
}

func timeoutCtx(ctx context.Context, d time.Duration) context.Context {
	c, cancel := context.WithTimeout(ctx, d)
	go func() { <-c.Done(); cancel() }()
	return c
}

func (e *Engine) anyBusyLocked() bool {
	for _, s := range e.slots {
		if s.busy() {
			return true
		}
	}
	return false
}

// stopMains is step 2: the preStop hooks of all running main containers start together; each
// main container gets its stop signal once its own hook ended and every main container that
// depends on it exited (or at the reserve point, whatever is unfinished); a running regular
// init container gets its stop signal at once. The step ends when all of them exited.
func (e *Engine) stopMains(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range e.slots {
		switch s.kind {
		case KindInit:
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.stopOne(ctx, s)
			}()
		case KindMain:
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.mu.Lock()
				inst := s.inst
				resumed := e.hookEndedBeforeAdoptionLocked(s, inst)
				e.mu.Unlock()
				hookDone := make(chan struct{})
				if inst != nil && !resumed && s.c.Lifecycle != nil && s.c.Lifecycle.PreStop != nil {
					go func() {
						hctx := ctx
						e.runHook(hctx, s, inst, HookPreStop, s.c.Lifecycle.PreStop)
						// Closed before the wake-up: a waiter woken first would find the hook
						// still running and sleep until some later change (at worst the
						// reserve point).
						close(hookDone)
						e.mu.Lock()
						e.commitLocked() // wake the waiter below
						e.mu.Unlock()
					}()
				} else {
					close(hookDone)
				}
				dependents := e.dependentsOf(s)
				ok := e.waitUntil(ctx, func() bool {
					if e.reserveReached {
						return true
					}
					select {
					case <-hookDone:
					default:
						return false
					}
					for _, d := range dependents {
						if d.busy() {
							return false
						}
					}
					return true
				})
				if ok {
					e.stopOne(ctx, s)
				}
			}()
		}
	}
	wg.Wait()
}

// stopSidecars is step 4: the sidecars one at a time in reverse list order — preStop hook,
// stop signal, wait for the exit. A sidecar is no longer restarted once its own step begins;
// until then it is, also while a later sidecar is being stopped (SIDE-001).
func (e *Engine) stopSidecars(ctx context.Context) {
	for i := len(e.slots) - 1; i >= 0; i-- {
		s := e.slots[i]
		if s.kind != KindSidecar {
			continue
		}
		e.mu.Lock()
		s.stopStep = true
		inst := s.inst
		resumed := e.hookEndedBeforeAdoptionLocked(s, inst)
		e.mu.Unlock()
		if inst != nil && !resumed && s.c.Lifecycle != nil && s.c.Lifecycle.PreStop != nil {
			e.runHook(ctx, s, inst, HookPreStop, s.c.Lifecycle.PreStop)
		}
		e.stopOne(ctx, s)
		if ctx.Err() != nil {
			return
		}
	}
}

// hookEndedBeforeAdoptionLocked reports whether an adopted instance's stop signal was already
// recorded by the lost supervisor: its preStop hook had ended then (or the reserve point had
// passed), so the resumed stop sequence does not run the hook again (SUP-006, SUP-007).
func (e *Engine) hookEndedBeforeAdoptionLocked(s *slot, inst *instance) bool {
	return inst != nil && inst.adopted && s.rec().StopReason != ""
}

// stopOne sends the slot's stop signal to its live instance (once) and waits until it exited.
func (e *Engine) stopOne(ctx context.Context, s *slot) {
	// An instance being created is skipped by its own goroutine; wait for that to settle.
	if !e.waitUntil(ctx, func() bool { return !s.creating }) {
		return // budget over or forced: the final SIGKILL takes over
	}
	e.mu.Lock()
	inst := s.inst
	send := inst != nil && s.rec().StopReason == ""
	why := "stop signal"
	if send {
		s.rec().StopReason = e.instanceStopReasonLocked()
	} else if inst != nil && inst.adopted && !inst.stopResent {
		// The stop signal is recorded before it is sent, so a supervisor that died in between
		// may never have sent it. The adopting supervisor sends it once more: at least once
		// rather than never.
		inst.stopResent = true
		send = true
		why = "stop signal, again after the supervisor was replaced"
	}
	e.mu.Unlock()
	if inst == nil {
		return
	}
	if send {
		sig := stopSignal(s.c)
		e.signal(ctx, s, sig, why)
	}
	e.waitUntil(ctx, func() bool { return s.inst != inst })
}

func (e *Engine) dependentsOf(s *slot) []*slot {
	var out []*slot
	for _, o := range e.slots {
		for _, d := range o.c.DependsOn {
			if d.Name == s.name && o.kind == KindMain {
				out = append(out, o)
			}
		}
	}
	return out
}

// evaluatePolicyLocked fires the exit policy once its condition holds; last is the main
// container whose terminal exit triggered the evaluation (nil on adoption).
func (e *Engine) evaluatePolicyLocked(last *slot) {
	if e.terminating {
		return
	}
	all := true
	mains := 0
	anyFailed := false
	for _, s := range e.slots {
		if s.kind != KindMain {
			continue
		}
		mains++
		if !s.rec().Terminal {
			all = false
		}
	}
	for _, x := range e.st.Exits {
		if x.Kind == KindMain && x.Failure {
			anyFailed = true
		}
	}
	if mains == 0 {
		return
	}
	lastFailed := false
	if last != nil {
		for _, x := range e.st.Exits {
			if x.Container == last.name {
				lastFailed = x.Failure
			}
		}
	}
	policy := e.st.Pod.Spec.ExitPolicy
	var fire bool
	switch policy {
	case v1alpha1.ExitPolicyAny:
		fire = last != nil || all
	case v1alpha1.ExitPolicyAnyFailure:
		fire = all || lastFailed
	default:
		policy = v1alpha1.ExitPolicyAll
		fire = all
	}
	if !fire {
		return
	}
	ev := e.event(runtimev1.EventPolicyFired, nil, string(policy), "")
	if last != nil {
		ev.Container = last.name
		ev.ContainerKind = KindMain
		e.st.PolicyDecider = last.name
	}
	reason := TerminationCompleted
	if anyFailed {
		reason = TerminationFailed
	}
	e.beginStopLocked(context.Background(), reason, e.gracePeriod(), false, "", ev)
}

// finish records the pod result, tears the sandbox down and records PodFinished.
func (e *Engine) finish(ctx context.Context) {
	e.mu.Lock()
	sb := e.st.Sandbox
	e.mu.Unlock()
	if len(sb) > 0 {
		if err := e.be.TeardownSandbox(ctx, e.info, sb); err != nil {
			e.logf("tear down sandbox: %v", err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now().UTC()
	s := e.st.Pod.Status
	phase, code, decider := e.resultLocked()
	s.Phase = phase
	s.ExitCode = &code
	s.DecidedBy = decider
	s.FinishedAt = &now
	if s.StartedAt == nil {
		s.StartedAt = &now
	}
	e.terminating = false
	setCondition(s, v1alpha1.PodReady, false, now)
	setCondition(s, v1alpha1.PodTerminating, false, now)
	e.deferCompletedLocked(now)
	ev := e.event(runtimev1.EventPodFinished, nil, s.Reason, "")
	ev.Phase = phase
	ev.ExitCode = &code
	ev.DecidedBy = decider
	e.commitLocked(ev)
	close(e.finished)
}

// resultLocked computes the pod result (docs/spec/exit.md, EXIT-014 to EXIT-018).
func (e *Engine) resultLocked() (v1alpha1.PodPhase, int32, string) {
	var firstFailure *store.ExitRecord
	for i := range e.st.Exits {
		if e.st.Exits[i].Failure {
			firstFailure = &e.st.Exits[i]
			break
		}
	}
	allStarted := true
	for _, s := range e.slots {
		if s.kind == KindMain && !s.rec().EverRan {
			allStarted = false
		}
	}
	reason := ""
	if e.st.Stop != nil {
		reason = e.st.Stop.Reason
	}
	if reason != TerminationDeadlineExceeded && reason != TerminationEvicted && reason != TerminationForced && allStarted && firstFailure == nil {
		return v1alpha1.PodSucceeded, 0, e.st.PolicyDecider
	}
	if firstFailure == nil {
		return v1alpha1.PodFailed, 1, ""
	}
	return v1alpha1.PodFailed, derivedExitCode(firstFailure), firstFailure.Container
}

// derivedExitCode is the pod's exit code from its deciding exit: the exit code, or the
// compatibility value 128+N for a signal, or 1 when neither is known.
func derivedExitCode(x *store.ExitRecord) int32 {
	switch {
	case x.ExitCode != nil:
		return *x.ExitCode
	case x.Signal != nil:
		return 128 + *x.Signal
	}
	return 1
}
