//go:build mutant_post_start_before_start

package mutant

// PostStartBeforeStart is true in the mutant build mutant_post_start_before_start: a container's postStart hook is started as soon as its instance is created, at the same time as the instance's start, not once the instance has started (breaks HB-005).
const PostStartBeforeStart = true
