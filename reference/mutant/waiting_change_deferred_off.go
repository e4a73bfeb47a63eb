//go:build !mutant_waiting_change_deferred

package mutant

// WaitingChangeDeferred, when true (build tag mutant_waiting_change_deferred), makes the runtime break a requirement: a change to a container that waits to start or to restart takes effect only at the start after its next one, which still uses the old definition (breaks UPD-012).
const WaitingChangeDeferred = false
