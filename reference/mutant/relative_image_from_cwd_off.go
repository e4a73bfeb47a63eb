//go:build !mutant_relative_image_from_cwd

package mutant

// RelativeImageFromCwd, when true (build tag mutant_relative_image_from_cwd), makes the runtime break a requirement: a relative PATH in an oci: reference is resolved against the runtime's working directory instead of the manifest's directory (breaks IMG-005).
const RelativeImageFromCwd = false
