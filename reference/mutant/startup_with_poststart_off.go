//go:build !mutant_startup_with_poststart

package mutant

// StartupWithPostStart, when true (build tag mutant_startup_with_poststart), makes the runtime break a requirement: the startup probe runs while the postStart hook runs instead of after it succeeded (breaks HB-006).
const StartupWithPostStart = false
