//go:build !mutant_reserve_point_ignored

package mutant

// ReservePointIgnored, when true (build tag mutant_reserve_point_ignored), makes the runtime break a requirement: at the reserve point a main container whose preStop hook has not ended still gets no stop signal: it waits for the hook, then SIGKILL at the budget end (breaks STOP-006).
const ReservePointIgnored = false
