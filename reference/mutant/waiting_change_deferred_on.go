//go:build mutant_waiting_change_deferred

package mutant

// WaitingChangeDeferred is true in the mutant build mutant_waiting_change_deferred: a change to a container that waits to start or to restart takes effect only at the start after its next one, which still uses the old definition (breaks UPD-012).
const WaitingChangeDeferred = true
