//go:build !mutant_no_default_pids_limit

package mutant

// NoDefaultPidsLimit, when true (build tag mutant_no_default_pids_limit), makes the runtime break a requirement: an instance whose container sets no pids limit gets none, so a fork bomb in it is stopped only by limits outside the runtime (breaks RES-003).
const NoDefaultPidsLimit = false
