//go:build mutant_shared_deleted_while_used

package mutant

// SharedDeletedWhileUsed is true in the mutant build mutant_shared_deleted_while_used: removing a pod that says reclaimPolicy Delete deletes its shared volume although other pods still declare it (breaks VOL-011).
const SharedDeletedWhileUsed = true
