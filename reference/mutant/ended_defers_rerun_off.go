//go:build !mutant_ended_defers_rerun

package mutant

// EndedDefersRerun, when true (build tag mutant_ended_defers_rerun), makes the runtime break a requirement: a defer step resumed after a supervisor loss runs again the defers of its phase whose run had ended (breaks DEFER-014).
const EndedDefersRerun = false
