//go:build !mutant_record_phase_succeeded_wins

package mutant

// RecordPhaseSucceededWins, when true (build tag mutant_record_phase_succeeded_wins), makes the runtime break a requirement: a pod record with a Succeeded and a Failed delivery is Succeeded instead of Failed (breaks NOTIF-013).
const RecordPhaseSucceededWins = false
