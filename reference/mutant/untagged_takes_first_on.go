//go:build mutant_untagged_takes_first

package mutant

// UntaggedTakesFirst is true in the mutant build mutant_untagged_takes_first: an oci: reference without tag or digest resolves to the first image of a layout that holds several (breaks IMG-006).
const UntaggedTakesFirst = true
