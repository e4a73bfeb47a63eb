//go:build !mutant_sigkill_stop_signal_accepted

package mutant

// SigkillStopSignalAccepted, when true (build tag mutant_sigkill_stop_signal_accepted), makes the runtime break a requirement: a manifest whose stopSignal is SIGKILL is created, the validator's STOP-001 error printed as a warning (breaks MAN-010).
const SigkillStopSignalAccepted = false
