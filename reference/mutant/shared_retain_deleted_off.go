//go:build !mutant_shared_retain_deleted

package mutant

// SharedRetainDeleted, when true (build tag mutant_shared_retain_deleted), makes the runtime break a requirement: the last pod of a shared volume saying reclaimPolicy Retain deletes it like Delete (breaks VOL-013).
const SharedRetainDeleted = false
