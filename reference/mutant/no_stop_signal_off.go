//go:build !mutant_no_stop_signal

package mutant

// NoStopSignal, when true (build tag mutant_no_stop_signal), makes the runtime break a requirement: the stop sequence sends SIGKILL instead of the container's stopSignal (breaks STOP-007, STOP-008).
const NoStopSignal = false
