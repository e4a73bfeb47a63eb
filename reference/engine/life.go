package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
)

// Hook names as events carry them.
const (
	HookPostStart = "postStart"
	HookPreStop   = "preStop"
)

// Probe names as events carry them.
const (
	ProbeStartup   = "startup"
	ProbeReadiness = "readiness"
	ProbeLiveness  = "liveness"
)

// Hook and probe results.
const (
	ResultSucceeded = "Succeeded"
	ResultFailed    = "Failed"
	ResultTimeout   = "Timeout"
)

// instanceLife runs what happens while an instance lives: the postStart hook, the startup
// probe (the container is Started after both), then readiness and liveness probes. It ends
// when ctx ends (the instance exited).
func (e *Engine) instanceLife(ctx context.Context, s *slot, inst *instance) {
	// A new instance is not Started yet unless startInstance found nothing to wait for; an
	// adopted one may have been.
	if !e.recStarted(s) {
		if lc := s.c.Lifecycle; lc != nil && lc.PostStart != nil {
			var res, msg string
			res, msg = e.runHook(ctx, s, inst, HookPostStart, lc.PostStart)
			if ctx.Err() != nil {
				return
			}
			if res != ResultSucceeded {
				reason := v1alpha1.ReasonStartError
				e.killInstance(ctx, s, inst, reason, "postStart hook "+strings.ToLower(res)+": "+msg)
				return
			}
		}
		if p := s.c.StartupProbe; p != nil {
			if !e.probeUntil(ctx, s, inst, ProbeStartup, p, true) {
				if ctx.Err() == nil {
					e.killInstance(ctx, s, inst, ReasonUnhealthy, "startup probe failed")
				}
				return
			}
		}
		e.mu.Lock()
		if s.inst != inst {
			e.mu.Unlock()
			return
		}
		e.commitLocked(e.startedLocked(s, inst)...)
		e.mu.Unlock()
	}
	if p := s.c.ReadinessProbe; p != nil {
		go e.readiness(ctx, s, inst, p)
	}
	if p := s.c.LivenessProbe; p != nil {
		if !e.probeUntil(ctx, s, inst, ProbeLiveness, p, false) && ctx.Err() == nil {
			e.killInstance(ctx, s, inst, ReasonUnhealthy, "liveness probe failed")
		}
	}
}

// startedLocked marks the slot's instance Started, and Ready when it has no readiness probe
// (init containers are never Ready), and returns the events to record with the change.
func (e *Engine) startedLocked(s *slot, inst *instance) []*runtimev1.Event {
	s.status().Started = true
	s.rec().EverStarted = true
	if s.c.ReadinessProbe != nil || s.kind == KindInit {
		return nil
	}
	s.status().Ready = true
	s.rec().EverReady = true
	return []*runtimev1.Event{e.instEvent(runtimev1.EventContainerReady, s, inst, "", "")}
}

func (e *Engine) recStarted(s *slot) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return s.status().Started
}

// probeUntil runs a probe periodically. With untilSuccess (startup) it returns true on the
// first success and false after failureThreshold consecutive failures; otherwise (liveness) it
// runs until failureThreshold consecutive failures (false) or ctx ends.
func (e *Engine) probeUntil(ctx context.Context, s *slot, inst *instance, name string, p *v1alpha1.Probe, untilSuccess bool) bool {
	if !sleepCtx(ctx, secondsOf(int64(p.InitialDelaySeconds))) {
		return false
	}
	fails := 0
	for {
		began := time.Now()
		ok, msg := e.probeOnce(ctx, s, inst, p)
		if ctx.Err() != nil {
			return false
		}
		if ok {
			fails = 0
			if untilSuccess {
				e.mu.Lock()
				e.commitLocked(e.instEvent(store.EventStartupSucceeded, s, inst, "", ""))
				e.mu.Unlock()
				return true
			}
		} else {
			fails++
			limit := int(threshold(p.FailureThreshold, v1alpha1.DefaultProbeFailureThreshold))
			if fails >= limit {
				e.mu.Lock()
				ev := e.instEvent(runtimev1.EventProbeFailed, s, inst, "ProbeFailed", msg)
				ev.Probe = name
				e.commitLocked(ev)
				e.mu.Unlock()
				return false
			}
		}
		if !sleepCtx(ctx, untilNextAttempt(began, p)) {
			return false
		}
	}
}

// readiness keeps the container's Ready flag up to date.
func (e *Engine) readiness(ctx context.Context, s *slot, inst *instance, p *v1alpha1.Probe) {
	if !sleepCtx(ctx, secondsOf(int64(p.InitialDelaySeconds))) {
		return
	}
	fails, succ := 0, 0
	for {
		began := time.Now()
		ok, msg := e.probeOnce(ctx, s, inst, p)
		if ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		if s.inst != inst {
			e.mu.Unlock()
			return
		}
		st := s.status()
		if ok {
			fails = 0
			succ++
			if !st.Ready && succ >= int(threshold(p.SuccessThreshold, v1alpha1.DefaultProbeSuccessThreshold)) {
				st.Ready = true
				s.rec().EverReady = true
				e.commitLocked(e.instEvent(runtimev1.EventContainerReady, s, inst, "", ""))
			}
		} else {
			succ = 0
			fails++
			limit := int(threshold(p.FailureThreshold, v1alpha1.DefaultProbeFailureThreshold))
			if st.Ready && fails >= limit {
				st.Ready = false
				ev := e.instEvent(runtimev1.EventProbeFailed, s, inst, "ProbeFailed", msg)
				ev.Probe = ProbeReadiness
				e.commitLocked(ev, e.instEvent(store.EventContainerNotReady, s, inst, "", msg))
			}
		}
		e.mu.Unlock()
		if !sleepCtx(ctx, untilNextAttempt(began, p)) {
			return
		}
	}
}

func threshold(v, def int32) int32 {
	if v <= 0 {
		return def
	}
	return v
}

// untilNextAttempt is the wait before the attempt after one that began at began: attempts start
// periodSeconds apart (HOOK-007), not periodSeconds after the previous one ended; an attempt that
// outlasted the period is followed at once (attempts never overlap).
func untilNextAttempt(began time.Time, p *v1alpha1.Probe) time.Duration {
	return time.Until(began.Add(probePeriod(p)))
}

func probePeriod(p *v1alpha1.Probe) time.Duration {
	if p.PeriodSeconds <= 0 {
		return secondsOf(int64(v1alpha1.DefaultProbePeriodSeconds))
	}
	return secondsOf(int64(p.PeriodSeconds))
}

// probeOnce runs a probe once, bounded by its timeout.
func (e *Engine) probeOnce(ctx context.Context, s *slot, inst *instance, p *v1alpha1.Probe) (bool, string) {
	to := secondsOf(int64(threshold(p.TimeoutSeconds, v1alpha1.DefaultProbeTimeoutSeconds)))
	pctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	if p.Exec == nil {
		err := e.networkProbeOnce(pctx, s.c, p)
		switch {
		case err == nil:
			return true, ""
		case pctx.Err() != nil && ctx.Err() == nil:
			return false, fmt.Sprintf("probe timed out after %s", to)
		}
		return false, err.Error()
	}
	if len(p.Exec.Command) == 0 {
		return false, "probe has no exec command"
	}
	e.mu.Lock()
	begun, ok := e.beginStepLocked(barredByForce)
	e.mu.Unlock()
	if !ok {
		return false, forbiddenStep(ctx)
	}
	defer begun()
	code, err := e.be.Exec(pctx, inst.id, p.Exec.Command, begun)
	if err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return false, fmt.Sprintf("probe timed out after %s", to)
		}
		return false, err.Error()
	}
	if code != 0 {
		return false, fmt.Sprintf("probe command exited %d", code)
	}
	return true, ""
}

// forbiddenStep is what a hook or a probe attempt that a forced stop forbids does instead of
// starting (MAIN-005): it waits until ctx ends — the instance's life, or the stop budget, both
// of which the forced stop ends — so that its caller, finding ctx over, acts on nothing.
func forbiddenStep(ctx context.Context) string {
	<-ctx.Done()
	return "a forced stop forbids it"
}

// runHook runs a postStart or preStop handler with HookStarted/HookFinished events. A forced
// stop forbids it (FORCE-003, MAIN-005): it then records nothing and returns once ctx ended.
func (e *Engine) runHook(ctx context.Context, s *slot, inst *instance, hook string, h *v1alpha1.LifecycleHandler) (result, msg string) {
	e.mu.Lock()
	begun, ok := e.beginStepLocked(barredByForce)
	if !ok {
		e.mu.Unlock()
		return ResultTimeout, forbiddenStep(ctx)
	}
	ev := e.instEvent(runtimev1.EventHookStarted, s, inst, "", "")
	ev.Hook = hook
	e.commitLocked(ev)
	e.mu.Unlock()
	if h.Exec == nil {
		begun() // a sleep or httpGet hook starts no process: it has begun with its HookStarted
	}
	defer begun()
	var code *int32
	switch {
	case h.Sleep != nil:
		if sleepCtx(ctx, secondsOf(h.Sleep.Seconds)) {
			result = ResultSucceeded
		} else {
			result, msg = ResultTimeout, "interrupted"
		}
	case h.HTTPGet != nil:
		err := e.httpGetHook(ctx, s.c, h.HTTPGet)
		switch {
		case err != nil && ctx.Err() != nil:
			result, msg = ResultTimeout, "the hook did not finish in time"
		case err != nil:
			result, msg = ResultFailed, err.Error()
		default:
			result = ResultSucceeded
		}
	case h.Exec != nil:
		c, err := e.be.Exec(ctx, inst.id, h.Exec.Command, begun)
		switch {
		case err != nil && ctx.Err() != nil:
			result, msg = ResultTimeout, "the hook did not finish in time"
		case err != nil:
			result, msg = ResultFailed, err.Error()
		default:
			cc := int32(c)
			code = &cc
			result = ResultSucceeded
			if c != 0 {
				result, msg = ResultFailed, fmt.Sprintf("exited %d", c)
			}
		}
	default:
		result, msg = ResultFailed, "hook has no handler"
	}
	e.mu.Lock()
	ev = e.instEvent(runtimev1.EventHookFinished, s, inst, "", msg)
	ev.Hook = hook
	ev.Result = result
	ev.ExitCode = code
	e.commitLocked(ev)
	e.mu.Unlock()
	return result, msg
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// adoptInstance takes over an instance recorded by a previous supervisor: a live one is
// watched; one that ended while nobody watched is recorded ExitStatusLost (via afterExit).
func (e *Engine) adoptInstance(ctx context.Context, s *slot) *instance {
	e.mu.Lock()
	r := s.rec()
	st := s.status()
	inst := &instance{id: r.ContainerID, pid: r.PID, n: st.RestartCount, adopted: true}
	if st.State.Running != nil {
		inst.startedAt = st.State.Running.StartedAt
	}
	running := r.Running
	// The pidfd is opened before the start time is compared: if the process is still the
	// recorded one after the open, the pidfd is that process's (a later one reusing the pid
	// would have another start time).
	inst.pidfd = openPidFD(r.PID)
	alive := r.StartTime != 0 && procstat.StartTime(r.PID) == r.StartTime
	if !alive {
		// The recorded process has ended: closed, so that no signal goes to its pid.
		inst.pidfd.close()
		inst.pidfd = &pidFD{fd: -1}
	}
	e.mu.Unlock()
	if !running && e.startedUnrecorded(ctx, inst, alive) {
		// The lost supervisor had started it (runc start) but not recorded it: record the
		// start now, late, and adopt it like a running one (SUP-004), alive or lost.
		e.mu.Lock()
		e.commitLocked(e.runningLocked(s, inst, time.Now().UTC())...)
		e.mu.Unlock()
		running = true
		if alive && processEnded(inst.pid) {
			// It ran its program and ended while startedUnrecorded watched it.
			alive = false
			inst.pidfd.close()
			inst.pidfd = &pidFD{fd: -1}
		}
	}
	if !running {
		// Created but never started: discard it; the slot creates a fresh instance. It was no
		// restart (RST-006 counts the instances started): restartCount and containerID go back
		// to what they were before its creation, so the fresh one takes its place and number.
		inst.pidfd.close()
		e.be.DeleteInstance(context.WithoutCancel(ctx), inst.id, e.info)
		e.mu.Lock()
		r.PID = 0
		r.Discarded++ // the fresh instance takes its number, not its containerID
		if st.ContainerID == inst.id {
			st.ContainerID = ""
			if t := st.LastState.Terminated; t != nil {
				st.ContainerID = t.ContainerID
				st.RestartCount = max(st.RestartCount-1, 0)
			}
		}
		e.commitLocked()
		e.mu.Unlock()
		return nil
	}
	if alive {
		inst.exit = e.watch(s, inst)
		e.mu.Lock()
		s.inst = inst
		e.mu.Unlock()
		return inst
	}
	// The process is gone: its exit was never observed.
	lost := make(chan reaper.ExitStatus, 1)
	lost <- reaper.ExitStatus{Known: false}
	inst.exit = lost
	inst.lostAtAdoption = true
	e.mu.Lock()
	s.inst = inst
	e.mu.Unlock()
	return inst
}

// initResolveTimeout bounds how long adoption waits for an instance found in the OCI runtime's
// init to run its program or end (startedUnrecorded).
const initResolveTimeout = 5 * time.Second

// startedUnrecorded reports whether an instance recorded as created (not running) was started
// all the same: its process runs the workload (no longer the OCI runtime's init), or the OCI
// runtime knows it as started. A process still in the init is watched until it is one or the
// other: the lost supervisor may have let it start (backend/held.go's "go") just before it
// died — it then runs its program within moments — or not, and then its hook failed with the
// supervisor and the runtime destroys the container. Judged at first sight, a start still under
// way was taken for none and the instance deleted as its program began. A process that stays in
// the init is taken as never started; a container the OCI runtime does not know (deleted) never
// ran. Where the host process cannot tell (a sandbox, as gVisor's), the runtime's state is
// watched the same way.
func (e *Engine) startedUnrecorded(ctx context.Context, inst *instance, alive bool) bool {
	if inst.id == "" || inst.pid == 0 {
		return false
	}
	for deadline := time.Now().Add(initResolveTimeout); alive; {
		inInit, tells := e.be.InRuntimeInit(ctx, inst.pid)
		if processEnded(inst.pid) {
			break // it ended: whether it had started is the OCI runtime's to tell
		}
		if tells && !inInit {
			return true
		}
		poll := 5 * time.Millisecond
		if !tells {
			if ran, known := e.be.InstanceRan(context.WithoutCancel(ctx), inst.id); known && ran {
				return true
			}
			poll = 50 * time.Millisecond // a runtime invocation each time
		}
		if time.Now().After(deadline) || !sleepCtx(ctx, poll) {
			return false
		}
	}
	ran, known := e.be.InstanceRan(context.WithoutCancel(ctx), inst.id)
	return known && ran
}
