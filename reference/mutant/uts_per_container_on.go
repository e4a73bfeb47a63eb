//go:build mutant_uts_per_container

package mutant

// UTSPerContainer is true in the mutant build mutant_uts_per_container: every container gets a UTS namespace of its own instead of joining the pod's (breaks SEC-008).
const UTSPerContainer = true
