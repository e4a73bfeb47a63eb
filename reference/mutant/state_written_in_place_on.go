//go:build mutant_state_written_in_place

package mutant

// StateWrittenInPlace is true in the mutant build mutant_state_written_in_place: a pod's state file is rewritten in place (opened with O_TRUNC, then written) instead of written to a temporary file and renamed over it, so a write that fails half-way (a full disk) or a crash during it leaves a truncated state (breaks SUP-002).
const StateWrittenInPlace = true
