//go:build !mutant_cancelled_restart_stays_waiting

package mutant

// CancelledRestartStaysWaiting, when true (build tag mutant_cancelled_restart_stays_waiting), makes the runtime break a requirement: a restart cancelled by the stop sequence leaves the container waiting with reason BackOff instead of showing its last termination again (breaks STOP-005).
const CancelledRestartStaysWaiting = false
