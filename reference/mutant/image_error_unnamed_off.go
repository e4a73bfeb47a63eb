//go:build !mutant_image_error_unnamed

package mutant

// ImageErrorUnnamed, when true (build tag mutant_image_error_unnamed), makes the runtime break a requirement: a pod creation that fails because an image cannot be resolved reports the failure without naming the image (breaks IMG-003).
const ImageErrorUnnamed = false
