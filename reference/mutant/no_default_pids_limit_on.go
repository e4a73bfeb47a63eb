//go:build mutant_no_default_pids_limit

package mutant

// NoDefaultPidsLimit is true in the mutant build mutant_no_default_pids_limit: an instance whose container sets no pids limit gets none, so a fork bomb in it is stopped only by limits outside the runtime (breaks RES-003).
const NoDefaultPidsLimit = true
