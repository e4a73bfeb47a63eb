//go:build mutant_update_kills_at_once

package mutant

// UpdateKillsAtOnce is true in the mutant build mutant_update_kills_at_once: an instance replaced by an update gets SIGKILL at once instead of its stop signal (breaks UPD-007).
const UpdateKillsAtOnce = true
