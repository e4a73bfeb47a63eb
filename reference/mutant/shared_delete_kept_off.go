//go:build !mutant_shared_delete_kept

package mutant

// SharedDeleteKept, when true (build tag mutant_shared_delete_kept), makes the runtime break a requirement: the last pod of a shared volume saying reclaimPolicy Delete keeps it like Retain (breaks VOL-012).
const SharedDeleteKept = false
