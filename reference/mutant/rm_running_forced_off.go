//go:build !mutant_rm_running_forced

package mutant

// RmRunningForced, when true (build tag mutant_rm_running_forced), makes the runtime break a requirement: rm without --force of a pod that is not terminal stops it with a forced stop and removes it instead of failing with Conflict (breaks GC-008).
const RmRunningForced = false
