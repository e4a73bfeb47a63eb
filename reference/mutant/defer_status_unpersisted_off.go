//go:build !mutant_defer_status_unpersisted

package mutant

// DeferStatusUnpersisted, when true (build tag mutant_defer_status_unpersisted), makes the runtime break a requirement: a defer container's status and record are left out of every state write until the pod has finished (they reach the disk only with the final state) (breaks DEFER-013).
const DeferStatusUnpersisted = false
