//go:build !mutant_liveness_kill_without_stop_signal

package mutant

// LivenessKillWithoutStopSignal, when true (build tag mutant_liveness_kill_without_stop_signal), makes the runtime break a requirement: an instance whose liveness probe failed gets SIGKILL at once, without its stop signal and grace period (breaks HOOK-010).
const LivenessKillWithoutStopSignal = false
