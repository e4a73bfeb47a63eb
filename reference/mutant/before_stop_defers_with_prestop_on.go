//go:build mutant_before_stop_defers_with_prestop

package mutant

// BeforeStopDefersWithPreStop is true in the mutant build mutant_before_stop_defers_with_prestop: the BeforeStop defers run while the main containers' preStop hooks and stop signals go ahead, instead of before them (breaks HB-009).
const BeforeStopDefersWithPreStop = true
