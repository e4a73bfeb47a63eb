package engine

// A start and a stop are ordered (MAIN-004): an instance's start is under way from its last
// check that no stop forbids it, made with e.mu held, to its ContainerStarted (or its failure),
// and a stop that begins the stop sequence or forces it waits until no start is under way. So a
// stop either comes first, and the check that follows sees it (the created instance is deleted,
// never started), or comes after the ContainerStarted, and stops a running instance. A start
// checks only once no stop is waiting, so that a stream of starts cannot hold a stop back.

// awaitStopsLocked waits (e.mu held, released while waiting) until no stop waits for starts to
// end; the caller then checks whether a stop forbids its start. It returns true (a convenience
// for loop conditions).
func (e *Engine) awaitStopsLocked() bool {
	for e.stopsWaiting > 0 {
		e.startCond.Wait()
	}
	return true
}

// beginStartLocked records a start under way (e.mu held), after the caller's check passed.
func (e *Engine) beginStartLocked() {
	e.startsUnderWay++
}

// endStartLocked ends a start under way (e.mu held): its ContainerStarted is committed, or it
// failed.
func (e *Engine) endStartLocked() {
	e.startsUnderWay--
	e.startCond.Broadcast()
}

// awaitStartsLocked waits (e.mu held, released while waiting) until no start is under way, for
// a stop about to begin or become forced. It reports whether it waited: the caller then reads
// the state afresh.
func (e *Engine) awaitStartsLocked() bool {
	if e.startsUnderWay == 0 {
		return false
	}
	e.stopsWaiting++
	for e.startsUnderWay > 0 {
		e.startCond.Wait()
	}
	e.stopsWaiting--
	e.startCond.Broadcast()
	return true
}
