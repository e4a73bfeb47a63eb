//go:build mutant_shared_delete_kept

package mutant

// SharedDeleteKept is true in the mutant build mutant_shared_delete_kept: the last pod of a shared volume saying reclaimPolicy Delete keeps it like Retain (breaks VOL-012).
const SharedDeleteKept = true
