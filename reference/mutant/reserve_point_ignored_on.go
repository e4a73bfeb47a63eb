//go:build mutant_reserve_point_ignored

package mutant

// ReservePointIgnored is true in the mutant build mutant_reserve_point_ignored: at the reserve point a main container whose preStop hook has not ended still gets no stop signal: it waits for the hook, then SIGKILL at the budget end (breaks STOP-006).
const ReservePointIgnored = true
