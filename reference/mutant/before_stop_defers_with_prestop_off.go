//go:build !mutant_before_stop_defers_with_prestop

package mutant

// BeforeStopDefersWithPreStop, when true (build tag mutant_before_stop_defers_with_prestop), makes the runtime break a requirement: the BeforeStop defers run while the main containers' preStop hooks and stop signals go ahead, instead of before them (breaks HB-009).
const BeforeStopDefersWithPreStop = false
