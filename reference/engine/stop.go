package engine

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// stopStep is one step of the stop sequence. Steps run in order, each bounded by the pod's
// single grace budget (ctx ends when the budget ends or the stop is forced). The index of the
// first unfinished step is persisted, so an adopting supervisor resumes there.
type stopStep struct {
	name string
	run  func(ctx context.Context)
}

// stopSteps is the stop sequence of the spec. The defer steps are where BeforeStop and
// AfterStop defer containers run (deferContainers); this engine version has no defer runner
// yet, so they finish at once — the slots exist so that adding defers does not renumber the
// persisted step index.
func (e *Engine) stopSteps() []stopStep {
	return []stopStep{
		{name: "BeforeStopDefers", run: e.runDefers(v1alpha1.DeferBeforeStop)},
		{name: "PreStopHooks", run: e.preStopMains},
		{name: "StopMainContainers", run: e.stopMains},
		{name: "AfterStopDefers", run: e.runDefers(v1alpha1.DeferAfterStop)},
		{name: "StopSidecars", run: e.stopSidecars},
	}
}

// runDefers is the defer-container step of one phase (issue 4): BeforeStop runs while the
// main containers still run, AfterStop after they stopped, before the sidecars.
func (e *Engine) runDefers(phase v1alpha1.DeferPhase) func(ctx context.Context) {
	return func(ctx context.Context) {}
}

// beginStopLocked starts the stop sequence, or escalates the one running. requested is the
// StopRequested event (nil when the exit policy or an init failure ends the pod).
func (e *Engine) beginStopLocked(ctx context.Context, reason string, grace int64, force bool, pre ...*store.Event) {
	if e.st.Pod.Status.FinishedAt != nil {
		return
	}
	now := time.Now().UTC()
	deadline := now.Add(time.Duration(grace) * time.Second)
	if e.terminating {
		evs := pre
		if force && !e.forced {
			e.st.Stop.Force = true
			e.forced = true
			e.commitLocked(evs...)
			e.stopCancel()
			return
		}
		if deadline.Before(e.st.Stop.Deadline) {
			e.st.Stop.Deadline = deadline
			e.commitLocked(evs...)
			go e.budgetTimer(e.stopCtx, deadline)
			return
		}
		e.commitLocked(evs...)
		return
	}
	e.terminating = true
	e.forced = force
	e.st.Stop = &store.StopState{RequestedAt: now, Reason: reason, Deadline: deadline, Force: force}
	evs := append(pre, e.event(store.EventPodTerminating, nil, reason, ""))
	e.commitLocked(evs...)
	e.startStopLocked(ctx)
}

// resumeStopLocked continues a persisted stop after adoption.
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
		go e.budgetTimer(sctx, e.st.Stop.Deadline)
	}
	go e.stopSequence(context.WithoutCancel(ctx), sctx)
}

// budgetTimer ends the stop steps when the grace budget is spent.
func (e *Engine) budgetTimer(ctx context.Context, at time.Time) {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		e.stopCancel()
	case <-ctx.Done():
	}
}

// stopSequence runs the steps from the persisted one, then kills whatever still runs, waits for
// every container goroutine, and finishes the pod.
func (e *Engine) stopSequence(ctx, budget context.Context) {
	steps := e.stopSteps()
	e.mu.Lock()
	first := e.st.Stop.Step
	e.mu.Unlock()
	for i := first; i < len(steps) && budget.Err() == nil; i++ {
		steps[i].run(budget)
		e.mu.Lock()
		if budget.Err() == nil {
			e.st.Stop.Step = i + 1
			e.commitLocked()
		}
		e.mu.Unlock()
	}
	// Budget over, forced, or all steps done: SIGKILL whatever still runs, until it is gone.
	for !e.waitUntil(timeoutCtx(ctx, time.Second), func() bool { return !e.anyBusyLocked() }) {
		e.mu.Lock()
		var live []*slot
		for _, s := range e.slots {
			if s.inst != nil {
				if s.rec().StopReason == "" {
					s.rec().StopReason = e.st.Stop.Reason
				}
				live = append(live, s)
			}
		}
		e.mu.Unlock()
		for _, s := range live {
			why := "grace period over"
			if e.forced {
				why = "forced stop"
			}
			e.signal(ctx, s, syscall.SIGKILL, why)
		}
	}
	e.wg.Wait()
	e.finish(ctx)
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

// preStopMains runs the preStop hooks of every running main container concurrently.
func (e *Engine) preStopMains(ctx context.Context) {
	var wg sync.WaitGroup
	e.mu.Lock()
	for _, s := range e.slots {
		if s.kind != KindMain || s.inst == nil || s.c.Lifecycle == nil || s.c.Lifecycle.PreStop == nil {
			continue
		}
		inst := s.inst
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.runHook(ctx, s, inst, HookPreStop, s.c.Lifecycle.PreStop)
		}()
	}
	e.mu.Unlock()
	wg.Wait()
}

// stopMains sends each main container (and a regular init container still running) its stop
// signal once every container that depends on it has exited — dependents before their
// dependencies, independent ones at once — and waits for them to exit.
func (e *Engine) stopMains(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range e.slots {
		if s.kind == KindSidecar {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			dependents := e.dependentsOf(s)
			if !e.waitUntil(ctx, func() bool {
				for _, d := range dependents {
					if d.busy() {
						return false
					}
				}
				return true
			}) {
				return
			}
			e.stopOne(ctx, s)
		}()
	}
	wg.Wait()
}

// stopSidecars stops the sidecars one at a time in reverse list order: preStop hook, stop
// signal, wait for the exit.
func (e *Engine) stopSidecars(ctx context.Context) {
	for i := len(e.slots) - 1; i >= 0; i-- {
		s := e.slots[i]
		if s.kind != KindSidecar {
			continue
		}
		e.mu.Lock()
		inst := s.inst
		e.mu.Unlock()
		if inst != nil && s.c.Lifecycle != nil && s.c.Lifecycle.PreStop != nil {
			e.runHook(ctx, s, inst, HookPreStop, s.c.Lifecycle.PreStop)
		}
		e.stopOne(ctx, s)
		if ctx.Err() != nil {
			return
		}
	}
}

// stopOne sends the slot's stop signal to its live instance and waits until it has exited.
func (e *Engine) stopOne(ctx context.Context, s *slot) {
	// An instance being created is skipped by its own goroutine; wait for that to settle.
	e.waitUntil(ctx, func() bool { return !s.creating })
	e.mu.Lock()
	inst := s.inst
	if inst != nil {
		s.rec().StopReason = e.st.Stop.Reason
	}
	e.mu.Unlock()
	if inst == nil {
		return
	}
	e.signal(ctx, s, stopSignal(s.c), "stop signal")
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
	var mains int
	for _, s := range e.slots {
		if s.kind != KindMain {
			continue
		}
		mains++
		if !s.rec().Terminal {
			all = false
		}
	}
	if mains == 0 {
		return
	}
	policy := e.st.Pod.Spec.ExitPolicy
	fire := false
	switch policy {
	case v1alpha1.ExitPolicyAny:
		fire = last != nil
	case v1alpha1.ExitPolicyAnyFailure:
		fire = all || (last != nil && !last.rec().Completed)
	default:
		policy = v1alpha1.ExitPolicyAll
		fire = all
	}
	if last == nil && all {
		fire = true
	}
	if !fire {
		return
	}
	decider, _ := e.resultLocked()
	ev := e.event(store.EventPolicyFired, nil, string(policy), "")
	if decider != "" {
		ev.Container = decider
		ev.ContainerKind = KindMain
	} else if last != nil {
		ev.Container = last.name
		ev.ContainerKind = KindMain
	}
	e.beginStopLocked(context.Background(), v1alpha1.ReasonStoppedByPolicy, e.gracePeriod(), false, ev)
}

// initFailedLocked ends the pod because a regular init container failed for good.
func (e *Engine) initFailedLocked(ctx context.Context, s *slot, t *v1alpha1.ContainerStateTerminated) {
	e.st.InitFailure = &store.ExitRecord{Container: s.name, Time: t.FinishedAt, ExitCode: t.ExitCode, Reason: t.Reason, Counts: true}
	if t.Signal != nil {
		n := t.Signal.Number
		e.st.InitFailure.Signal = &n
	}
	e.beginStopLocked(ctx, ReasonInitFailed, e.gracePeriod(), false)
}

// resultLocked computes the pod result from the recorded exits: the deciding container and
// its exit record (nil: nothing decided).
func (e *Engine) resultLocked() (string, *store.ExitRecord) {
	if f := e.st.InitFailure; f != nil {
		return f.Container, f
	}
	var counted []store.ExitRecord
	for _, x := range e.st.Exits {
		if x.Counts {
			counted = append(counted, x)
		}
	}
	failed := func(x store.ExitRecord) bool { return x.ExitCode == nil || *x.ExitCode != 0 }
	switch e.st.Pod.Spec.ExitPolicy {
	case v1alpha1.ExitPolicyAny:
		if len(counted) > 0 {
			return counted[0].Container, &counted[0]
		}
	default:
		for i := range counted {
			if failed(counted[i]) {
				return counted[i].Container, &counted[i]
			}
		}
		if n := len(counted); n > 0 {
			return counted[n-1].Container, &counted[n-1]
		}
	}
	return "", nil
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
	decider, x := e.resultLocked()
	reason := e.st.Stop.Reason
	var code int32
	phase := v1alpha1.PodSucceeded
	switch {
	case x != nil && (x.ExitCode == nil || *x.ExitCode != 0):
		phase = v1alpha1.PodFailed
		code = derivedExitCode(x)
	case reason == v1alpha1.ReasonDeadlineExceeded || reason == v1alpha1.ReasonForced && x == nil:
		phase = v1alpha1.PodFailed
		code = 1
		decider = ""
	}
	if reason == v1alpha1.ReasonDeadlineExceeded {
		phase = v1alpha1.PodFailed
		if code == 0 {
			code = 1
		}
	}
	s.Phase = phase
	s.ExitCode = &code
	s.DecidedBy = decider
	switch reason {
	case v1alpha1.ReasonStoppedByPolicy:
		s.Reason = ""
	default:
		s.Reason = reason
	}
	if x != nil {
		s.Message = fmt.Sprintf("decided by %s (%s)", x.Container, x.Reason)
	}
	s.FinishedAt = &now
	e.terminating = false
	setCondition(s, v1alpha1.PodReady, false, now)
	setCondition(s, v1alpha1.PodTerminating, false, now)
	ev := e.event(store.EventPodFinished, nil, s.Reason, s.Message)
	ev.Phase = phase
	ev.ExitCode = &code
	ev.DecidedBy = decider
	e.commitLocked(ev)
	close(e.finished)
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
