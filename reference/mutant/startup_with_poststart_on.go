//go:build mutant_startup_with_poststart

package mutant

// StartupWithPostStart is true in the mutant build mutant_startup_with_poststart: the startup probe runs while the postStart hook runs instead of after it succeeded (breaks HB-006).
const StartupWithPostStart = true
