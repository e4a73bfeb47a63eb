//go:build !mutant_handler_exit_code_dropped

package mutant

// HandlerExitCodeDropped, when true (build tag mutant_handler_exit_code_dropped), makes the runtime break a requirement: an exec delivery that exits non-zero is recorded Failed HandlerFailed without its exitCode (breaks NTF-007).
const HandlerExitCodeDropped = false
