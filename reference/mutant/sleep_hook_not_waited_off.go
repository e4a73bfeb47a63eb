//go:build !mutant_sleep_hook_not_waited

package mutant

// SleepHookNotWaited, when true (build tag mutant_sleep_hook_not_waited), makes the runtime break a requirement: a sleep hook ends at once instead of waiting its seconds (breaks HOOK-004).
const SleepHookNotWaited = false
