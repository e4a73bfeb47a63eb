//go:build !mutant_update_kills_at_once

package mutant

// UpdateKillsAtOnce, when true (build tag mutant_update_kills_at_once), makes the runtime break a requirement: an instance replaced by an update gets SIGKILL at once instead of its stop signal (breaks UPD-007).
const UpdateKillsAtOnce = false
