//go:build mutant_sigkill_stop_signal_accepted

package mutant

// SigkillStopSignalAccepted is true in the mutant build mutant_sigkill_stop_signal_accepted: a manifest whose stopSignal is SIGKILL is created, the validator's STOP-001 error printed as a warning (breaks MAN-010).
const SigkillStopSignalAccepted = true
