//go:build !mutant_restarts_need_creator

package mutant

// RestartsNeedCreator, when true (build tag mutant_restarts_need_creator), makes the runtime break a requirement: containers are restarted only while the command that created the pod still runs (breaks SUP-001).
const RestartsNeedCreator = false
