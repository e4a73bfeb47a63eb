package engine

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

// Helpers of the mutant builds (package reference/mutant). They are called only from branches
// guarded by a mutant switch; in a normal build every switch is false, the branches are
// dropped by the compiler, and these helpers by the linker.

// mutantKillNow kills an instance with SIGKILL at once, without its stop signal: the liveness
// kill of the mutant liveness_kill_without_stop_signal.
func (e *Engine) mutantKillNow(ctx context.Context, s *slot, inst *instance, reason, msg string) {
	e.mu.Lock()
	if s.inst != inst || s.rec().StopReason != "" {
		e.mu.Unlock()
		return
	}
	inst.killReason, inst.killMsg = reason, msg
	e.mu.Unlock()
	e.mutantNote("liveness kill without the stop signal")
	e.signal(ctx, s, syscall.SIGKILL, msg)
}

// mutantNote records in the supervisor's log that a mutant switch took effect.
func (e *Engine) mutantNote(name string) {
	e.logf("podspec mutant build: %s", name)
}

// mutantDependencies returns the main containers that s depends on: the reversed stop order
// waits for them instead of for s's dependents.
func (e *Engine) mutantDependencies(s *slot) []*slot {
	var out []*slot
	for _, d := range s.c.DependsOn {
		if o := e.byName[d.Name]; o != nil && o.kind == KindMain {
			out = append(out, o)
		}
	}
	return out
}

// mutantConcurrently returns a step that runs a and b at the same time and ends when both
// ended: the AfterStop defers started together with the main containers' stop.
func mutantConcurrently(a, b func(context.Context)) func(context.Context) {
	return func(ctx context.Context) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			b(ctx)
		}()
		a(ctx)
		<-done
	}
}

// mutantDefersOnForce runs the defer containers of a forced stop as if it were graceful, with
// 10 s for them, before the final SIGKILL.
func (e *Engine) mutantDefersOnForce(ctx context.Context) {
	e.mu.Lock()
	if !e.forced {
		e.mu.Unlock()
		return
	}
	e.forced = false
	if end := time.Now().Add(10 * time.Second); e.st.Stop.Deadline.Before(end) {
		e.st.Stop.Deadline = end
	}
	e.commitLocked()
	e.mu.Unlock()
	e.mutantNote("defers run on a forced stop")
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	e.runDefers(v1alpha1.DeferBeforeStop)(dctx)
	e.runDefers(v1alpha1.DeferAfterStop)(dctx)
	e.mu.Lock()
	e.forced = true
	e.mu.Unlock()
}

// mutantUncappedBackoff is initial×factor^k without the cap at maxSeconds.
func mutantUncappedBackoff(b *v1alpha1.Backoff, k int) time.Duration {
	d := *b.InitialSeconds
	for i := 0; i < k; i++ {
		d *= *b.Factor
	}
	return fractionalSeconds(d)
}

// mutantBudgetMovedLater reports whether a later stop request moved the budget end past end.
func (e *Engine) mutantBudgetMovedLater(end time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st.Stop.Deadline.After(end)
}

// mutantLower is s in lower case (the termination reason written as a vendor's own spelling).
func mutantLower(s string) string { return strings.ToLower(s) }

// mutantResultAtStopLocked sets status.exitCode and status.decidedBy when the stop sequence
// begins, from the exits so far, as if the pod were terminal (EXIT-019).
func (e *Engine) mutantResultAtStopLocked() {
	e.mutantNote("the pod result is set when the stop sequence begins")
	_, code, decider := e.resultLocked()
	s := e.st.Pod.Status
	s.ExitCode = &code
	s.DecidedBy = decider
}

// mutantHookMu makes the main containers' preStop hooks run one at a time (HB-019).
var mutantHookMu sync.Mutex

// mutantDefers tracks the defer runs started at once (HB-010).
var mutantDefers sync.WaitGroup

// mutantDeferInParallel starts a defer's run without waiting for it (HB-010).
func (e *Engine) mutantDeferInParallel(ctx context.Context, s *slot) {
	e.mutantNote("defers of a phase run at once")
	mutantDefers.Add(1)
	go func() {
		defer mutantDefers.Done()
		e.runDefer(ctx, s)
	}()
}

// mutantWaitDefers waits for the defer runs mutantDeferInParallel started.
func (e *Engine) mutantWaitDefers() { mutantDefers.Wait() }

// mutantInitsCompletedLocked reports whether every regular init container completed, whatever
// the sidecars (HB-003).
func (e *Engine) mutantInitsCompletedLocked() bool {
	for _, s := range e.slots {
		if s.kind == KindInit && !s.rec().Completed {
			return false
		}
	}
	return true
}

// mutantFirstTerminalMainLocked is the first main container in list order whose exit was
// terminal: the exit a list-order evaluation takes to have fired the policy (EXIT-008).
func (e *Engine) mutantFirstTerminalMainLocked() *slot {
	e.mutantNote("the exit policy is evaluated in list order")
	for _, s := range e.slots {
		if s.kind == KindMain && s.rec().Terminal {
			return s
		}
	}
	return nil
}

// mutantSignalOtherMains sends its stop signal to every other main container of the pod that
// runs, as if restarting one container restarted the pod (RST-007).
func (e *Engine) mutantSignalOtherMains(ctx context.Context, restarted *slot) {
	e.mutantNote("a restart signals the other main containers")
	for _, o := range e.slots {
		if o != restarted && o.kind == KindMain {
			e.signal(ctx, o, stopSignal(o.c), "restart of "+restarted.name)
		}
	}
}

// mutantRerunInits runs each regular init container once more, at once, as if restarting a
// main container restarted the pod (INIT-001).
func (e *Engine) mutantRerunInits(ctx context.Context) {
	e.mutantNote("a restart runs the init containers again")
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.slots {
		if s.kind == KindInit && s.rec().Completed && s.inst == nil && !e.terminating {
			s.rec().Terminal = false
			e.wg.Add(1)
			go e.runSlot(ctx, s, nil)
		}
	}
}

// mutantPostStartWithStartup runs the postStart hook and, at the same time, the startup probe
// until it passes; it returns the hook's result once both ended (HB-006).
func (e *Engine) mutantPostStartWithStartup(ctx context.Context, s *slot, inst *instance, h *v1alpha1.LifecycleHandler) (string, string) {
	e.mutantNote("startup probe during postStart")
	passed := make(chan bool, 1)
	go func() { passed <- e.probeUntil(ctx, s, inst, ProbeStartup, s.c.StartupProbe, true) }()
	res, msg := e.runHook(ctx, s, inst, HookPostStart, h)
	if !<-passed && res == ResultSucceeded {
		return ResultFailed, "startup probe failed"
	}
	return res, msg
}
