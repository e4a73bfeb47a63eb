//go:build mutant_ended_defers_rerun

package mutant

// EndedDefersRerun is true in the mutant build mutant_ended_defers_rerun: a defer step resumed after a supervisor loss runs again the defers of its phase whose run had ended (breaks DEFER-014).
const EndedDefersRerun = true
