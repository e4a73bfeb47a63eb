//go:build !mutant_exit_policy_ignored

package mutant

// ExitPolicyIgnored, when true (build tag mutant_exit_policy_ignored), makes the runtime break a requirement: exitPolicy Any behaves like All, firing only when every main container has exited (breaks EXIT-004).
const ExitPolicyIgnored = false
