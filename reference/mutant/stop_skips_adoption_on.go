//go:build mutant_stop_skips_adoption

package mutant

// StopSkipsAdoption is true in the mutant build mutant_stop_skips_adoption: `stop` does not check the pod's supervisor: after a loss it only tries the dead supervisor's socket and fails, leaving the loss to the next `status` (breaks SUP-003).
const StopSkipsAdoption = true
