//go:build !mutant_prestop_not_awaited

package mutant

// PreStopNotAwaited, when true (build tag mutant_prestop_not_awaited), makes the runtime break a requirement: a main container gets its stop signal without waiting for its preStop hook (breaks HB-012).
const PreStopNotAwaited = false
