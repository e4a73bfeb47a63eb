//go:build mutant_state_root_owner_unchecked

package mutant

// StateRootOwnerUnchecked is true in the mutant build mutant_state_root_owner_unchecked: a directory of the state owned by another user is used as if it were the runtime's own (breaks SUP-011).
const StateRootOwnerUnchecked = true
