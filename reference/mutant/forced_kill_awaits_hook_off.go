//go:build !mutant_forced_kill_awaits_hook

package mutant

// ForcedKillAwaitsHook, when true (build tag mutant_forced_kill_awaits_hook), makes the runtime break a requirement: a forced stop during a running preStop hook lets the hook run to its end before the SIGKILL (breaks FORCE-002).
const ForcedKillAwaitsHook = false
