//go:build mutant_record_phase_succeeded_wins

package mutant

// RecordPhaseSucceededWins is true in the mutant build mutant_record_phase_succeeded_wins: a pod record with a Succeeded and a Failed delivery is Succeeded instead of Failed (breaks NOTIF-013).
const RecordPhaseSucceededWins = true
