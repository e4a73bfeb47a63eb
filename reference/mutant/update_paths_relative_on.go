//go:build mutant_update_paths_relative

package mutant

// UpdatePathsRelative is true in the mutant build mutant_update_paths_relative: a refused update reports its findings' field paths relative to the pod spec (containers[0].name), not as the validator does (spec.containers[0].name) (breaks UPD-003).
const UpdatePathsRelative = true
