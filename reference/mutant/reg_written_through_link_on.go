//go:build mutant_reg_written_through_link

package mutant

// RegWrittenThroughLink is true in the mutant build mutant_reg_written_through_link: a regular file of a layer is written into an existing entry of its name, following a symbolic link there, instead of replacing the entry (breaks IMG-010).
const RegWrittenThroughLink = true
