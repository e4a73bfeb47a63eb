//go:build !mutant_terminal_before_kill

package mutant

// TerminalBeforeKill, when true (build tag mutant_terminal_before_kill), makes the runtime break a requirement: at the budget end the pod becomes terminal before what still runs is sent SIGKILL, so it ends after PodFinished (breaks HB-016).
const TerminalBeforeKill = false
