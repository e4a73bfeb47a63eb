//go:build mutant_image_error_unnamed

package mutant

// ImageErrorUnnamed is true in the mutant build mutant_image_error_unnamed: a pod creation that fails because an image cannot be resolved reports the failure without naming the image (breaks IMG-003).
const ImageErrorUnnamed = true
