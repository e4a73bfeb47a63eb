//go:build !mutant_emptydir_cleared_on_restart

package mutant

// EmptyDirClearedOnRestart, when true (build tag mutant_emptydir_cleared_on_restart), makes the runtime break a requirement: an emptyDir is emptied whenever an instance that mounts it is created, so a restart loses its content (breaks VOL-005).
const EmptyDirClearedOnRestart = false
