package engine

// A start and a stop are ordered (MAIN-004): an instance's start is under way from its last
// check that no stop forbids it, made with e.mu held, to its ContainerStarted (or its failure):
// while its slot holds the instance and it is not Running (slot.starting), and a stop that
// begins the stop sequence or forces it waits until no start is under way. So a stop either
// comes first, and the check that follows sees it (the created instance is deleted, never
// started), or comes after the ContainerStarted, and stops a running instance. A start checks
// only once no stop is waiting, so that a stream of starts cannot hold a stop back. startCond
// (on e.mu) is signalled at every change of the state (wakeLocked) and when a stop ends its wait.

// awaitStopsLocked waits (e.mu held, released while waiting) until no stop waits for starts to
// end; the caller then checks whether a stop forbids its start. It returns true (a convenience
// for loop conditions).
func (e *Engine) awaitStopsLocked() bool {
	for e.stopsWaiting > 0 {
		e.startCond.Wait()
	}
	return true
}

// startingLocked reports whether a start is under way (e.mu held).
func (e *Engine) startingLocked() bool {
	for _, s := range e.slots {
		if s.starting() {
			return true
		}
	}
	return false
}

// awaitStartsLocked waits (e.mu held, released while waiting) until no start is under way, for
// a stop about to begin or become forced.
func (e *Engine) awaitStartsLocked() {
	if !e.startingLocked() {
		return
	}
	e.stopsWaiting++
	for e.startingLocked() {
		e.startCond.Wait()
	}
	e.stopsWaiting--
	e.startCond.Broadcast()
}
