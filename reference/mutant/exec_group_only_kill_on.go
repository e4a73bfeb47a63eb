//go:build mutant_exec_group_only_kill

package mutant

// ExecGroupOnlyKill is true in the mutant build mutant_exec_group_only_kill: a timed-out exec action has only its process group killed, so descendants that left the group (a session of their own) live on (breaks NTF-008).
const ExecGroupOnlyKill = true
