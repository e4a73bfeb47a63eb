//go:build mutant_prestop_hooks_serial

package mutant

// PreStopHooksSerial is true in the mutant build mutant_prestop_hooks_serial: the preStop hooks of the main containers run one after the other, not all at once (breaks HB-019).
const PreStopHooksSerial = true
