//go:build mutant_handler_exit_code_dropped

package mutant

// HandlerExitCodeDropped is true in the mutant build mutant_handler_exit_code_dropped: an exec delivery that exits non-zero is recorded Failed HandlerFailed without its exitCode (breaks NTF-007).
const HandlerExitCodeDropped = true
