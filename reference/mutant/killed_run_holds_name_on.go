//go:build mutant_killed_run_holds_name

package mutant

// KilledRunHoldsName is true in the mutant build mutant_killed_run_holds_name: a run refuses a name while a work directory of a creator of that name exists (to fail fast when two runs create one pod), a check made before the sweep of dead creators' leftovers, and it counts a dead creator's: a run --detach killed while it built the pod under its .creating- directory leaves the name taken (Conflict) although no verb finds the pod (breaks SUP-010).
const KilledRunHoldsName = true
