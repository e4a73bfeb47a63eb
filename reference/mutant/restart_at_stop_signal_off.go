//go:build !mutant_restart_at_stop_signal

package mutant

// RestartAtStopSignal, when true (build tag mutant_restart_at_stop_signal), makes the runtime break a requirement: an instance the runtime kills (failed liveness or startup probe, failed postStart hook) counts as exited, and its restart begins, as soon as its stop signal is sent, so the next instance starts while the old one is still in its grace period (breaks HB-008).
const RestartAtStopSignal = false
