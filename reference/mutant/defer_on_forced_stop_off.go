//go:build !mutant_defer_on_forced_stop

package mutant

// DeferOnForcedStop, when true (build tag mutant_defer_on_forced_stop), makes the runtime break a requirement: a forced stop still runs the defer containers (breaks FORCE-003, FORCE-004).
const DeferOnForcedStop = false
