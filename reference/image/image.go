// Package image is the reference runtime's image store: it resolves OCI image layouts (read
// and verified by package ocilayout), unpacks an image's layers once per manifest digest into a
// cache directory, path-safely, and gives every container instance a fresh, writable root
// filesystem on top of that cache (overlayfs, or a copy when overlayfs cannot be mounted). It
// also keeps a resolved image so later instances start from the same content (IMG-004), and
// looks users up in an image's own user database.
//
// The package never pulls from registries and never runs anything from an image.
package image

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/mutant"
)

// Store resolves images and caches their unpacked root filesystems under Root.
//
// Layout of Root: rootfs/<manifest-hex>/ (unpacked, read-only by convention), locks/ (one lock
// file per digest), tmp/ (unpacks in progress).
type Store struct {
	// Root is the cache directory, e.g. /var/lib/podspec/images.
	Root string
}

// Resolve resolves ref with ocilayout.Resolve (manifest, config and layer digests verified).
// When the store already holds the unpacked root filesystem of the selected manifest digest
// (which pins every layer digest), layer blobs are not re-hashed, so resolving a cached image
// costs two small reads.
func (s *Store) Resolve(ctx context.Context, ref ocilayout.Reference) (*ocilayout.Image, error) {
	if mutant.UntaggedTakesFirst && ref.Tag == "" && ref.Digest == "" {
		ref = mutantFirstImage(ref) // the mutant: the first of several
	}
	skipLayers := s.unpacked
	if mutant.LayerDigestUnchecked {
		skipLayers = mutantLayersUnchecked // the mutant: no layer blob is hashed
	}
	return ocilayout.Resolve(ctx, ref, skipLayers)
}

// unpacked reports whether the store holds the unpacked root filesystem of a manifest digest.
func (s *Store) unpacked(manifestDigest string) bool {
	if s.Root == "" || !ocilayout.ValidDigest(manifestDigest) {
		return false
	}
	fi, err := os.Stat(s.rootfsPath(manifestDigest))
	return err == nil && fi.IsDir()
}

// rootfsPath is the cache directory of the unpacked root filesystem of a manifest digest.
func (s *Store) rootfsPath(manifestDigest string) string {
	return filepath.Join(s.Root, "rootfs", strings.TrimPrefix(manifestDigest, "sha256:"))
}
