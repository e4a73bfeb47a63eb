//go:build mutant_shared_recreated_empty

package mutant

// SharedRecreatedEmpty is true in the mutant build mutant_shared_recreated_empty: every pod that declares a shared volume gets its directory emptied at its creation (breaks VOL-010).
const SharedRecreatedEmpty = true
