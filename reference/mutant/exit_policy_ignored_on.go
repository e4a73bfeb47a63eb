//go:build mutant_exit_policy_ignored

package mutant

// ExitPolicyIgnored is true in the mutant build mutant_exit_policy_ignored: exitPolicy Any behaves like All, firing only when every main container has exited (breaks EXIT-004).
const ExitPolicyIgnored = true
