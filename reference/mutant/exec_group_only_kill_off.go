//go:build !mutant_exec_group_only_kill

package mutant

// ExecGroupOnlyKill, when true (build tag mutant_exec_group_only_kill), makes the runtime break a requirement: a timed-out exec action has only its process group killed, so descendants that left the group (a session of their own) live on (breaks NTF-008).
const ExecGroupOnlyKill = false
