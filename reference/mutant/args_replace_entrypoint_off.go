//go:build !mutant_args_replace_entrypoint

package mutant

// ArgsReplaceEntrypoint, when true (build tag mutant_args_replace_entrypoint), makes the runtime break a requirement: a container that gives args without a command runs its args alone, without the image's Entrypoint (breaks IMG-008).
const ArgsReplaceEntrypoint = false
