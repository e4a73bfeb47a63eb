//go:build mutant_emptydir_cleared_on_restart

package mutant

// EmptyDirClearedOnRestart is true in the mutant build mutant_emptydir_cleared_on_restart: an emptyDir is emptied whenever an instance that mounts it is created, so a restart loses its content (breaks VOL-005).
const EmptyDirClearedOnRestart = true
