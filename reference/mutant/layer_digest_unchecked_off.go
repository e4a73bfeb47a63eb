//go:build !mutant_layer_digest_unchecked

package mutant

// LayerDigestUnchecked, when true (build tag mutant_layer_digest_unchecked), makes the runtime break a requirement: layer blobs are unpacked without a check of their digest or of the config's diff id (their size, and the manifest's and config's digests, are still checked), so an altered layer that still reads as a tar is unpacked and run (breaks IMG-007).
const LayerDigestUnchecked = false
