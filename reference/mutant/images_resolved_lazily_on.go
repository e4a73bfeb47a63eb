//go:build mutant_images_resolved_lazily

package mutant

// ImagesResolvedLazily is true in the mutant build mutant_images_resolved_lazily: only the first main container's image is resolved when the pod is created; every other image is resolved when its container first starts (breaks IMG-002).
const ImagesResolvedLazily = true
