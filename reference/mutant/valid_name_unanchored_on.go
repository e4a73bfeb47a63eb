//go:build mutant_valid_name_unanchored

package mutant

// ValidNameUnanchored is true in the mutant build mutant_valid_name_unanchored: the name check's regular expression is unanchored: a name that merely contains a run of [a-z0-9] passes it, slashes and .. included (breaks SEC-005).
const ValidNameUnanchored = true
