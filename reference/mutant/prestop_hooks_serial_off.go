//go:build !mutant_prestop_hooks_serial

package mutant

// PreStopHooksSerial, when true (build tag mutant_prestop_hooks_serial), makes the runtime break a requirement: the preStop hooks of the main containers run one after the other, not all at once (breaks HB-019).
const PreStopHooksSerial = false
