//go:build !mutant_uts_per_container

package mutant

// UTSPerContainer, when true (build tag mutant_uts_per_container), makes the runtime break a requirement: every container gets a UTS namespace of its own instead of joining the pod's (breaks SEC-008).
const UTSPerContainer = false
