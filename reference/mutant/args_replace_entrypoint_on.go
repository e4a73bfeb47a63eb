//go:build mutant_args_replace_entrypoint

package mutant

// ArgsReplaceEntrypoint is true in the mutant build mutant_args_replace_entrypoint: a container that gives args without a command runs its args alone, without the image's Entrypoint (breaks IMG-008).
const ArgsReplaceEntrypoint = true
