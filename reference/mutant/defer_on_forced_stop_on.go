//go:build mutant_defer_on_forced_stop

package mutant

// DeferOnForcedStop is true in the mutant build mutant_defer_on_forced_stop: a forced stop still runs the defer containers (breaks FORCE-003, FORCE-004).
const DeferOnForcedStop = true
