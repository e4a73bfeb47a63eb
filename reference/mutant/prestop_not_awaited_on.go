//go:build mutant_prestop_not_awaited

package mutant

// PreStopNotAwaited is true in the mutant build mutant_prestop_not_awaited: a main container gets its stop signal without waiting for its preStop hook (breaks HB-012).
const PreStopNotAwaited = true
