//go:build mutant_restarts_need_creator

package mutant

// RestartsNeedCreator is true in the mutant build mutant_restarts_need_creator: containers are restarted only while the command that created the pod still runs (breaks SUP-001).
const RestartsNeedCreator = true
