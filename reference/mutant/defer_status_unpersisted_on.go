//go:build mutant_defer_status_unpersisted

package mutant

// DeferStatusUnpersisted is true in the mutant build mutant_defer_status_unpersisted: a defer container's status and record are left out of every state write until the pod has finished (they reach the disk only with the final state) (breaks DEFER-013).
const DeferStatusUnpersisted = true
