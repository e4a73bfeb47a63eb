//go:build !mutant_image_resolved_at_start

package mutant

// ImageResolvedAtStart, when true (build tag mutant_image_resolved_at_start), makes the runtime break a requirement: every instance resolves the container's image reference anew at its start instead of using the content resolved when the pod was created (breaks IMG-004).
const ImageResolvedAtStart = false
