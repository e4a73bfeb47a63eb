package main

import "go.yaml.in/yaml/v3"

// Helpers of the mutant builds (package reference/mutant). They are called only from branches
// guarded by a mutant switch; in a normal build every switch is false, the branches are
// dropped by the compiler, and these helpers by the linker.

// mutantRestartPolicyUnset reports whether a pod manifest leaves spec.restartPolicy unset: the
// mutant unset_restart_policy_on_failure gives such a pod another default than the
// specification's.
func mutantRestartPolicyUnset(data []byte) bool {
	var doc struct {
		Spec map[string]any `yaml:"spec"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	_, set := doc.Spec["restartPolicy"]
	return !set
}
