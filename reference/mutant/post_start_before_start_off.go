//go:build !mutant_post_start_before_start

package mutant

// PostStartBeforeStart, when true (build tag mutant_post_start_before_start), makes the runtime break a requirement: a container's postStart hook is started as soon as its instance is created, at the same time as the instance's start, not once the instance has started (breaks HB-005).
const PostStartBeforeStart = false
