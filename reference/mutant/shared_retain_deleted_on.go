//go:build mutant_shared_retain_deleted

package mutant

// SharedRetainDeleted is true in the mutant build mutant_shared_retain_deleted: the last pod of a shared volume saying reclaimPolicy Retain deletes it like Delete (breaks VOL-013).
const SharedRetainDeleted = true
