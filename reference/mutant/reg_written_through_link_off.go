//go:build !mutant_reg_written_through_link

package mutant

// RegWrittenThroughLink, when true (build tag mutant_reg_written_through_link), makes the runtime break a requirement: a regular file of a layer is written into an existing entry of its name, following a symbolic link there, instead of replacing the entry (breaks IMG-010).
const RegWrittenThroughLink = false
