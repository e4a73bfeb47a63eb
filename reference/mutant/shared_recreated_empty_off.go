//go:build !mutant_shared_recreated_empty

package mutant

// SharedRecreatedEmpty, when true (build tag mutant_shared_recreated_empty), makes the runtime break a requirement: every pod that declares a shared volume gets its directory emptied at its creation (breaks VOL-010).
const SharedRecreatedEmpty = false
