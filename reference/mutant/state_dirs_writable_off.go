//go:build !mutant_state_dirs_writable

package mutant

// StateDirsWritable, when true (build tag mutant_state_dirs_writable), makes the runtime break a requirement: a directory of the state that group or other users may write keeps that permission: neither the ownership check nor the store's open removes it (breaks SUP-012).
const StateDirsWritable = false
