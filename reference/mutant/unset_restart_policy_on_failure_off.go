//go:build !mutant_unset_restart_policy_on_failure

package mutant

// UnsetRestartPolicyOnFailure, when true (build tag mutant_unset_restart_policy_on_failure), makes the runtime break a requirement: a pod whose manifest leaves spec.restartPolicy unset runs with OnFailure, not the default Always (breaks MAN-011).
const UnsetRestartPolicyOnFailure = false
