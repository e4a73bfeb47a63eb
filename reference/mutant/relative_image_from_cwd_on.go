//go:build mutant_relative_image_from_cwd

package mutant

// RelativeImageFromCwd is true in the mutant build mutant_relative_image_from_cwd: a relative PATH in an oci: reference is resolved against the runtime's working directory instead of the manifest's directory (breaks IMG-005).
const RelativeImageFromCwd = true
