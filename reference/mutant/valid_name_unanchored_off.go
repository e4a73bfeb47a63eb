//go:build !mutant_valid_name_unanchored

package mutant

// ValidNameUnanchored, when true (build tag mutant_valid_name_unanchored), makes the runtime break a requirement: the name check's regular expression is unanchored: a name that merely contains a run of [a-z0-9] passes it, slashes and .. included (breaks SEC-005).
const ValidNameUnanchored = false
