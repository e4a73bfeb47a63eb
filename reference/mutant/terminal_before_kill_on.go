//go:build mutant_terminal_before_kill

package mutant

// TerminalBeforeKill is true in the mutant build mutant_terminal_before_kill: at the budget end the pod becomes terminal before what still runs is sent SIGKILL, so it ends after PodFinished (breaks HB-016).
const TerminalBeforeKill = true
