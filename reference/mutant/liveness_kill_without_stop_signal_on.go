//go:build mutant_liveness_kill_without_stop_signal

package mutant

// LivenessKillWithoutStopSignal is true in the mutant build mutant_liveness_kill_without_stop_signal: an instance whose liveness probe failed gets SIGKILL at once, without its stop signal and grace period (breaks HOOK-010).
const LivenessKillWithoutStopSignal = true
