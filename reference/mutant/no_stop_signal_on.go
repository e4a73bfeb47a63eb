//go:build mutant_no_stop_signal

package mutant

// NoStopSignal is true in the mutant build mutant_no_stop_signal: the stop sequence sends SIGKILL instead of the container's stopSignal (breaks STOP-007, STOP-008).
const NoStopSignal = true
