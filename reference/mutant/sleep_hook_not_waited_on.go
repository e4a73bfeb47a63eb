//go:build mutant_sleep_hook_not_waited

package mutant

// SleepHookNotWaited is true in the mutant build mutant_sleep_hook_not_waited: a sleep hook ends at once instead of waiting its seconds (breaks HOOK-004).
const SleepHookNotWaited = true
