//go:build mutant_image_resolved_at_start

package mutant

// ImageResolvedAtStart is true in the mutant build mutant_image_resolved_at_start: every instance resolves the container's image reference anew at its start instead of using the content resolved when the pod was created (breaks IMG-004).
const ImageResolvedAtStart = true
