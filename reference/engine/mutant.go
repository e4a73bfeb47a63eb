package engine

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/validation"
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

// mutantDependenciesHoldNowLocked reports whether each dependency of s meets its condition now
// (Ready or Started at this moment, not ever): the gate a restart waits for (DEP-011).
func (e *Engine) mutantDependenciesHoldNowLocked(s *slot) bool {
	e.mutantNote("a restart waits for its dependencies")
	for _, d := range s.c.DependsOn {
		dep := e.byName[d.Name]
		if dep == nil {
			return false
		}
		switch d.Condition {
		case v1alpha1.ConditionReady:
			if !dep.status().Ready {
				return false
			}
		case v1alpha1.ConditionCompleted:
			if !dep.rec().Completed {
				return false
			}
		default:
			if !dep.status().Started {
				return false
			}
		}
	}
	return true
}

// mutantFirstExitFailedLocked reports whether a dependency's first instance ended in a failure:
// it has been restarted or waits in back-off for its restart (a container named by a Completed
// dependency is never under Always, DEP-005, so only a failure, or an update, restarts it). The
// mutant completed_from_first_exit takes that first exit for the dependency's final one.
func (e *Engine) mutantFirstExitFailedLocked(dep *slot) bool {
	st := dep.status()
	if st.RestartCount == 0 && st.LastState.Terminated == nil {
		return false
	}
	e.mutantNote("condition Completed decided by the dependency's first exit")
	return true
}

// mutantRestartExitedLocked runs a main container that exited terminally once more, with its
// new definition (UPD-013).
func (e *Engine) mutantRestartExitedLocked(s *slot) {
	e.mutantNote("an update restarts a container that exited terminally")
	s.rec().Terminal = false
	e.wg.Add(1)
	go e.runSlot(e.runCtx, s, nil)
}

// mutantCountReplacedLocked records the end of an instance an update replaced among the exits
// that decide the pod result, failed when it exited non-zero (UPD-008).
func (e *Engine) mutantCountReplacedLocked(s *slot, term *v1alpha1.ContainerStateTerminated) {
	e.mutantNote("a replaced instance's end counts for the pod result")
	e.st.Exits = append(e.st.Exits, store.ExitRecord{Container: s.name, Kind: s.kind, Time: term.FinishedAt,
		ExitCode: term.ExitCode, Reason: term.Reason, Failure: term.ExitCode != nil && *term.ExitCode != 0})
}

// mutantHeld holds the ContainerExited events of stopped sidecars, by slot index, until the
// sidecar step ends (STAT-007).
var mutantHeld map[int]*runtimev1.Event

// mutantHoldExitLocked keeps a stopped sidecar's ContainerExited for the end of the step.
func (e *Engine) mutantHoldExitLocked(s *slot, ev *runtimev1.Event) {
	e.mutantNote("a sidecar's ContainerExited waits for the end of the sidecar step")
	if mutantHeld == nil {
		mutantHeld = map[int]*runtimev1.Event{}
	}
	mutantHeld[s.index] = ev
	e.commitLocked()
}

// mutantCommitHeldExits records the held ContainerExited events in list order.
func (e *Engine) mutantCommitHeldExits() {
	e.mu.Lock()
	defer e.mu.Unlock()
	var evs []*runtimev1.Event
	for i := range e.slots {
		if ev := mutantHeld[i]; ev != nil {
			evs = append(evs, ev)
			delete(mutantHeld, i)
		}
	}
	e.commitLocked(evs...)
}

// mutantWithoutEmptyDirs is c without its mounts of the pod's emptyDir volumes: a defer that
// does not see what the other containers wrote there (DEFER-016).
func (e *Engine) mutantWithoutEmptyDirs(c *v1alpha1.Container) *v1alpha1.Container {
	e.mutantNote("a defer without the pod's emptyDir volumes")
	empty := map[string]bool{}
	for _, v := range e.st.Pod.Spec.Volumes {
		empty[v.Name] = v.EmptyDir != nil
	}
	nc := *c
	nc.VolumeMounts = nil
	for _, m := range c.VolumeMounts {
		if !empty[m.Name] {
			nc.VolumeMounts = append(nc.VolumeMounts, m)
		}
	}
	return &nc
}

// mutantKept holds, by container name, the definition a waiting container had before an
// update changed it: its next start still uses it (UPD-012).
var mutantKept map[string]v1alpha1.Container

// mutantKeepDefinitionLocked keeps s's definition before an update changes it.
func (e *Engine) mutantKeepDefinitionLocked(s *slot) {
	e.mutantNote("a waiting container keeps its old definition for its next start")
	if mutantKept == nil {
		mutantKept = map[string]v1alpha1.Container{}
	}
	if _, ok := mutantKept[s.name]; !ok {
		mutantKept[s.name] = *s.c
	}
}

// mutantNextDefinitionLocked is the definition of s's next instance: the kept one once, else
// the current one.
func (e *Engine) mutantNextDefinitionLocked(s *slot) v1alpha1.Container {
	if c, ok := mutantKept[s.name]; ok {
		delete(mutantKept, s.name)
		return c
	}
	return *s.c
}

// mutantReplaceUnchangedLocked replaces, for the update of generation gen, every running main
// container the update did not change (ch): the mutant update_restarts_unchanged restarts the
// whole pod's main containers for a change to one of them.
func (e *Engine) mutantReplaceUnchangedLocked(rc context.Context, u *updateState, ch validation.Changes, gen int64) {
	changed := map[string]bool{}
	for _, cc := range ch.Containers {
		changed[cc.Name] = true
	}
	if len(changed) == 0 {
		return
	}
	for _, s := range e.slots {
		if s.kind != KindMain || changed[s.name] || s.inst == nil || s.rec().Terminal || u.replacing[s.inst.id] {
			continue
		}
		e.mutantNote("an update replaces an unchanged container")
		u.pending[s.name] = gen
		s.rec().UpdatePending = gen
		u.replacing[s.inst.id] = true
		go e.replaceInstance(rc, s, s.inst, gen)
		go e.awaitRestart(rc, s, u.version[s.name], gen)
	}
}

// mutantInstanceUID is the UID the mutant restart_events_new_uid gives the events of the pod's
// instance n of a container: one derived from the pod's UID and n, as if each restart had made
// a new pod sandbox.
func (e *Engine) mutantInstanceUID(n int32) string {
	base, err := uuid.Parse(e.info.UID)
	if err != nil {
		base = uuid.Nil
	}
	return uuid.NewSHA1(base, []byte(fmt.Sprint(n))).String()
}

// mutantProbeLeftRunning is probeOnce of the mutant probe_timeout_not_killed: the attempt's
// command runs unbounded; at the timeout (pctx) the attempt counts as failed and its command is
// left running.
func (e *Engine) mutantProbeLeftRunning(ctx, pctx context.Context, inst *instance, p *v1alpha1.Probe, to time.Duration) (bool, string) {
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := e.be.Exec(context.WithoutCancel(ctx), inst.id, p.Exec.Command)
		done <- result{code, err}
	}()
	select {
	case <-pctx.Done():
		e.mutantNote("a timed-out probe attempt left running")
		return false, fmt.Sprintf("probe timed out after %s", to)
	case r := <-done:
		if r.err != nil {
			return false, r.err.Error()
		}
		if r.code != 0 {
			return false, fmt.Sprintf("probe command exited %d", r.code)
		}
		return true, ""
	}
}

// mutantEveryHookEnded returns a channel closed once every main container's preStop step of the
// stop sequence has ended (or had none), and the function each of them calls when it has: the
// stop signals of the mutant stop_signal_awaits_every_prestop wait for the channel. Closing it
// commits, so that the waiters look again.
func (e *Engine) mutantEveryHookEnded() (<-chan struct{}, func()) {
	var wg sync.WaitGroup
	for _, s := range e.slots {
		if s.kind == KindMain {
			wg.Add(1)
		}
	}
	all := make(chan struct{})
	go func() {
		wg.Wait()
		close(all)
		e.mu.Lock()
		e.commitLocked()
		e.mu.Unlock()
	}()
	return all, wg.Done
}

// mutantEarlierMainsStartedLocked reports whether every main container listed before s has
// started an instance or ended: the in-order start of the mutant mains_start_in_order.
func (e *Engine) mutantEarlierMainsStartedLocked(s *slot) bool {
	for _, o := range e.slots {
		if o == s {
			return true
		}
		if o.kind == KindMain && !o.rec().EverRan && !o.rec().Terminal {
			return false
		}
	}
	return true
}

// mutantFullBackoff is how long an adopting supervisor of the mutant adopted_backoff_restarted
// waits before a restart: the whole back-off delay again, counted from the adoption, instead of
// until next, the moment the lost supervisor had decided.
func (e *Engine) mutantFullBackoff(s *slot, next time.Time) time.Duration {
	e.mutantNote("the back-off delay is counted again from the adoption")
	e.mu.Lock()
	defer e.mu.Unlock()
	if t := s.status().LastState.Terminated; t != nil && next.After(t.FinishedAt) {
		return next.Sub(t.FinishedAt)
	}
	return time.Until(next)
}

// mutantForgetEnd makes an adopting supervisor of the mutant adoption_reruns_completed_init
// forget that an init container exited 0, so that it runs again.
func (e *Engine) mutantForgetEnd(s *slot) {
	e.mutantNote("an init container that had exited 0 runs again after the adoption")
	r := s.rec()
	r.Terminal, r.Completed = false, false
}

// mutantRecreate kills an instance an adopting supervisor of the mutant
// adoption_recreates_instances found running, deletes it and leaves the slot to start a new
// one in its place.
func (e *Engine) mutantRecreate(ctx context.Context, s *slot, inst *instance) *instance {
	e.mutantNote("adoption kills a running instance and starts a new one")
	_ = inst.pidfd.send(syscall.SIGKILL)
	for i := 0; i < 500 && !processEnded(inst.pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	inst.pidfd.close()
	e.be.DeleteInstance(context.WithoutCancel(ctx), inst.id, e.info)
	e.mu.Lock()
	r := s.rec()
	r.PID, r.Running = 0, false
	e.commitLocked()
	e.mu.Unlock()
	return nil
}

// mutantFinishThenKill is the budget end of the mutant terminal_before_kill: the pod becomes
// terminal (PodFinished) while live still run, and only then are they sent SIGKILL.
func (e *Engine) mutantFinishThenKill(ctx context.Context, live []*slot) {
	e.mutantNote("the pod is terminal before what still runs at the budget end is killed")
	var insts []*instance
	e.mu.Lock()
	for _, s := range live {
		if s.inst != nil {
			insts = append(insts, s.inst)
		}
	}
	e.mu.Unlock()
	e.finish(ctx)
	for _, inst := range insts {
		_ = e.sendSignal(context.WithoutCancel(ctx), inst, syscall.SIGKILL)
	}
}

// mutantCreatorAliveLocked reports whether the command that created the pod still runs: the
// mutant restarts_need_creator restarts containers only while it does, as a runtime whose
// restart loop lives in the creating command would.
func (e *Engine) mutantCreatorAliveLocked() bool {
	c := e.st.Creator
	alive := c.PID != 0 && procstat.StartTime(c.PID) == c.StartTime
	if !alive {
		e.mutantNote("no restart: the command that created the pod has exited")
	}
	return alive
}

// mutantEarlyHooks holds, per instance, the result of the postStart hook the mutant
// post_start_before_start started at the instance's creation.
var mutantEarlyHooks sync.Map // *instance -> chan [2]string

// mutantEarlyPostStart starts the container's postStart hook at once, before the instance is
// started (the mutant post_start_before_start); instanceLife takes its result.
func (e *Engine) mutantEarlyPostStart(ctx context.Context, s *slot, inst *instance) {
	lc := s.c.Lifecycle
	if lc == nil || lc.PostStart == nil {
		return
	}
	e.mutantNote("postStart started before the instance's start")
	done := make(chan [2]string, 1)
	mutantEarlyHooks.Store(inst, done)
	go func() {
		res, msg := e.runHook(ctx, s, inst, HookPostStart, lc.PostStart)
		done <- [2]string{res, msg}
	}()
}

// mutantEarlyPostStartResult waits for the hook mutantEarlyPostStart started for inst.
func (e *Engine) mutantEarlyPostStartResult(ctx context.Context, inst *instance) (string, string) {
	v, ok := mutantEarlyHooks.LoadAndDelete(inst)
	if !ok {
		return ResultFailed, "no early postStart hook"
	}
	select {
	case r := <-v.(chan [2]string):
		return r[0], r[1]
	case <-ctx.Done():
		return ResultFailed, ctx.Err().Error()
	}
}

// mutantCancelOnDeletion returns a context that ends when the Notification of req is deleted:
// the mutant deletion_interrupts_delivery runs a delivery's action under it, so deleting the
// Notification kills the action (its whole process tree, as at a timeout).
func (e *Engine) mutantCancelOnDeletion(ctx context.Context, req *notify.DeliverRequest) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		for {
			if o, err := notify.ReadObject(req.Dir); err != nil || o.UID != req.UID {
				e.mutantNote("a deleted Notification's running delivery is interrupted")
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(notifyPoll):
			}
		}
	}()
	return ctx, cancel
}

// mutantPodActions is held around every notifier action in the mutant deliveries_serial_per_pod:
// one supervisor runs one pod, so the deliveries to its containers run one at a time.
var mutantPodActions sync.Mutex

// mutantWithoutDefers is the state the mutant defer_status_unpersisted writes: until the pod has
// finished, without the defer containers' statuses and records (an adopting supervisor rebuilds
// them as at creation: waiting, never run).
func (e *Engine) mutantWithoutDefers(st *store.State) *store.State {
	if st.Pod.Status == nil || st.Pod.Status.FinishedAt != nil || len(st.Pod.Spec.DeferContainers) == 0 {
		return st
	}
	c := *st
	status := *st.Pod.Status
	status.DeferContainerStatuses = nil
	c.Pod.Status = &status
	c.Containers = maps.Clone(st.Containers)
	for _, d := range st.Pod.Spec.DeferContainers {
		delete(c.Containers, d.Name)
	}
	return &c
}

// mutantPresumed maps an instance of the mutant restart_at_stop_signal to the channel its
// runtime kill closes once the stop signal went out (mutantPresumeExited): from then on its slot
// takes it for exited.
var mutantPresumed sync.Map

// mutantDetached holds the instances whose exit the slot presumed and whose real end
// mutantAwaitKilled still awaits: their OCI container is deleted there, not by afterExit.
var mutantDetached sync.Map

// mutantPresumedExit returns the channel closed when the runtime's kill of inst sent its stop
// signal.
func mutantPresumedExit(inst *instance) <-chan struct{} {
	ch := make(chan struct{})
	mutantPresumed.Store(inst, ch)
	return ch
}

// mutantExitPresumed waits until the runtime's kill of inst presumed its exit (presumed closed:
// true), or until inst really exited or ctx ended (false). A real exit is put back into
// inst.exit, for the slot's own wait to take at once.
func (e *Engine) mutantExitPresumed(ctx context.Context, inst *instance, presumed <-chan struct{}) bool {
	defer mutantPresumed.Delete(inst)
	select {
	case <-presumed:
		return true
	case ex := <-inst.exit:
		again := make(chan reaper.ExitStatus, 1)
		again <- ex
		inst.exit = again
	case <-ctx.Done():
	}
	return false
}

// mutantIsDetached reports whether inst's exit was presumed and its real end is awaited aside.
func mutantIsDetached(inst *instance) bool {
	_, ok := mutantDetached.Load(inst)
	return ok
}

// mutantPresumeExited is the mutant restart_at_stop_signal in a runtime kill, just after the stop
// signal: when the slot would restart the instance, the slot takes it for exited now, without
// waiting for its end. It reports whether it did (the kill then leaves the SIGKILL at the grace
// end to mutantAwaitKilled).
func (e *Engine) mutantPresumeExited(s *slot, inst *instance) bool {
	e.mu.Lock()
	restarts := s.inst == inst && !e.noRestartLocked(s) && (s.policy != v1alpha1.RestartPolicyNever || s.kind == KindSidecar)
	e.mu.Unlock()
	ch, ok := mutantPresumed.LoadAndDelete(inst)
	if !restarts || !ok {
		return false
	}
	e.mutantNote("an instance killed by the runtime is taken for exited at its stop signal")
	close(ch.(chan struct{}))
	return true
}

// mutantAwaitKilled returns the exit the mutant restart_at_stop_signal presumes for an instance
// whose stop signal was just sent (a death by that signal) and, aside, does what the kill would
// have gone on to do: SIGKILL at the end of the grace period unless the instance ended first;
// once it ended, its OCI container is deleted.
func (e *Engine) mutantAwaitKilled(ctx context.Context, s *slot, inst *instance) reaper.ExitStatus {
	mutantDetached.Store(inst, true)
	e.mu.Lock()
	grace := secondsOf(e.gracePeriod())
	msg := inst.killMsg
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer mutantDetached.Delete(inst)
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-inst.exit:
		case <-ctx.Done():
			inst.pidfd.close()
			return
		case <-t.C:
			e.mu.Lock()
			ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", msg+": grace period over")
			ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(int32(syscall.SIGKILL)), Number: int32(syscall.SIGKILL)}
			e.commitLocked(ev)
			e.mu.Unlock()
			if err := e.sendSignal(context.WithoutCancel(ctx), inst, syscall.SIGKILL); err != nil && err != errProcessGone {
				e.logf("signal %s SIGKILL: %v", inst.id, err)
			}
			select {
			case <-inst.exit:
			case <-ctx.Done():
				inst.pidfd.close()
				return
			}
		}
		inst.pidfd.close()
		e.be.DeleteInstance(context.WithoutCancel(ctx), inst.id, e.info)
	}()
	return reaper.ExitStatus{Known: true, Status: syscall.WaitStatus(stopSignal(s.c))}
}
