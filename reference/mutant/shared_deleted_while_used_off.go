//go:build !mutant_shared_deleted_while_used

package mutant

// SharedDeletedWhileUsed, when true (build tag mutant_shared_deleted_while_used), makes the runtime break a requirement: removing a pod that says reclaimPolicy Delete deletes its shared volume although other pods still declare it (breaks VOL-011).
const SharedDeletedWhileUsed = false
