//go:build mutant_unset_restart_policy_on_failure

package mutant

// UnsetRestartPolicyOnFailure is true in the mutant build mutant_unset_restart_policy_on_failure: a pod whose manifest leaves spec.restartPolicy unset runs with OnFailure, not the default Always (breaks MAN-011).
const UnsetRestartPolicyOnFailure = true
