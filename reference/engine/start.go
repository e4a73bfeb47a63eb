package engine

import (
	"sync"
	"time"
)

// A start and a stop are ordered (MAIN-004): an instance's start is under way from its last
// check that no stop forbids it, made with e.mu held, to its ContainerStarted (or its failure):
// while its slot holds the instance and it is not Running (slot.starting), and a stop that
// begins the stop sequence or forces it waits until no start is under way. So a stop either
// comes first, and the check that follows sees it (the created instance is deleted, never
// started), or comes after the ContainerStarted, and stops a running instance. A start checks
// only once no stop is waiting, so that a stream of starts cannot hold a stop back. startCond
// (on e.mu) is signalled at every change of the state (wakeLocked) and when a stop ends its wait.
//
// The steps that start a process with an exec in a running instance are ordered the same way
// against the stop that forbids them (MAIN-005): hooks and exec probe attempts against a forced
// stop (FORCE-003: no hooks; FORCE-002: its SIGKILL reaches every process of the pod), notifier
// actions against the beginning of the stop sequence (the pod is no longer eligible,
// NOTIF-008). Such a start is under way from its last check (beginStepLocked) until the
// backend reports its process begun (Backend.Exec's begun), or its start ended without one, or
// execBeginBound passed; a stop that forbids it waits for that.

// stepBar names the stop that forbids a step started with an exec (MAIN-005).
type stepBar int

const (
	// barredByForce: hooks and exec probe attempts, forbidden by a forced stop.
	barredByForce stepBar = iota
	// barredByStop: notifier actions, forbidden once the stop sequence began.
	barredByStop
)

// execBeginBound bounds how long a stop waits for an exec step's process to begin (runc begins
// one in tens of milliseconds): a runtime that hangs before starting it does not hold the stop
// back for longer.
const execBeginBound = 10 * time.Second

// forbiddenLocked reports whether a stop forbids a step barred by bar (e.mu held).
func (e *Engine) forbiddenLocked(bar stepBar) bool {
	if bar == barredByForce {
		return e.forced
	}
	return e.terminating || e.st.Pod.Status.FinishedAt != nil
}

// beginStepLocked is the last check before a step barred by bar starts (e.mu held, released
// while a stop waits): once no stop waits for the starts under way, it reports false if a stop
// forbids the step, which then starts nothing. Otherwise the step's start is under way until
// begun is called — by the backend once the step's process has begun, and by the step when its
// start ended without one (begun is idempotent and takes e.mu: never call it with e.mu held).
func (e *Engine) beginStepLocked(bar stepBar) (begun func(), ok bool) {
	e.awaitStopsLocked()
	if e.forbiddenLocked(bar) {
		return nil, false
	}
	e.execsStarting[bar]++
	var once sync.Once
	end := func() {
		once.Do(func() {
			e.mu.Lock()
			e.execsStarting[bar]--
			e.startCond.Broadcast()
			e.mu.Unlock()
		})
	}
	bound := time.AfterFunc(execBeginBound, func() {
		e.logf("a step's process has not begun %s after its start was decided: the stops no longer wait for it", execBeginBound)
		end()
	})
	return func() { bound.Stop(); end() }, true
}

// awaitStopsLocked waits (e.mu held, released while waiting) until no stop waits for starts to
// end; the caller then checks whether a stop forbids its start. It returns true (a convenience
// for loop conditions).
func (e *Engine) awaitStopsLocked() bool {
	for e.stopsWaiting > 0 {
		e.startCond.Wait()
	}
	return true
}

// startingLocked reports whether a start that a stop (forced, if force) forbids is under way
// (e.mu held): an instance's, or an exec step's.
func (e *Engine) startingLocked(force bool) bool {
	if e.execsStarting[barredByStop] > 0 || (force && e.execsStarting[barredByForce] > 0) {
		return true
	}
	for _, s := range e.slots {
		if s.starting() {
			return true
		}
	}
	return false
}

// awaitStartsLocked waits (e.mu held, released while waiting) until no start that the stop
// forbids is under way, for a stop about to begin or become forced (force).
func (e *Engine) awaitStartsLocked(force bool) {
	if !e.startingLocked(force) {
		return
	}
	e.stopsWaiting++
	for e.startingLocked(force) {
		e.startCond.Wait()
	}
	e.stopsWaiting--
	e.startCond.Broadcast()
}
