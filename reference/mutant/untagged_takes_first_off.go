//go:build !mutant_untagged_takes_first

package mutant

// UntaggedTakesFirst, when true (build tag mutant_untagged_takes_first), makes the runtime break a requirement: an oci: reference without tag or digest resolves to the first image of a layout that holds several (breaks IMG-006).
const UntaggedTakesFirst = false
