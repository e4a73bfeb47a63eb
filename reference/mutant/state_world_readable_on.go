//go:build mutant_state_world_readable

package mutant

// StateWorldReadable is true in the mutant build mutant_state_world_readable: the state root, its pods directory and every pod's directory are created (and the root chmodded) 0755 instead of 0700, so any user can list them and read what in them is not 0600 (breaks SEC-007).
const StateWorldReadable = true
