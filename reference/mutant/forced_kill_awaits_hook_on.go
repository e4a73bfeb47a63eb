//go:build mutant_forced_kill_awaits_hook

package mutant

// ForcedKillAwaitsHook is true in the mutant build mutant_forced_kill_awaits_hook: a forced stop during a running preStop hook lets the hook run to its end before the SIGKILL (breaks FORCE-002).
const ForcedKillAwaitsHook = true
