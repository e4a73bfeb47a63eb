//go:build !mutant_state_root_owner_unchecked

package mutant

// StateRootOwnerUnchecked, when true (build tag mutant_state_root_owner_unchecked), makes the runtime break a requirement: a directory of the state owned by another user is used as if it were the runtime's own (breaks SUP-011).
const StateRootOwnerUnchecked = false
