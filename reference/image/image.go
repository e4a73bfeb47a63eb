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
)

// Store resolves images and caches their unpacked root filesystems under Root.
//
// Layout of Root: rootfs-v2/<manifest-hex>/ (unpacked, read-only by convention), locks/ (one
// lock file per digest), tmp/ (unpacks in progress). rootfs/ holds what earlier versions
// unpacked, with modes and times bent by their umask (IMG-014): it is never read, so every
// image is unpacked again once; it is left for the operator to remove, since running pods may
// still have overlay mounts on it.
type Store struct {
	// Root is the cache directory, e.g. /var/lib/podspec/images.
	Root string
}

// Resolve resolves ref with ocilayout.Resolve (manifest, config and layer digests verified).
// When the store already holds the unpacked root filesystem of the selected manifest digest
// (which pins every layer digest), layer blobs are not re-hashed, so resolving a cached image
// costs two small reads.
func (s *Store) Resolve(ctx context.Context, ref ocilayout.Reference) (*ocilayout.Image, error) {
	skipLayers := s.unpacked
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

// unpackedDir is the directory of Root holding the unpacked root filesystems, one per manifest
// digest. Its name changes when what an unpack produces changes, so that no entry of an
// earlier unpacker is taken for one of this one.
const unpackedDir = "rootfs-v2"

// rootfsPath is the cache directory of the unpacked root filesystem of a manifest digest.
func (s *Store) rootfsPath(manifestDigest string) string {
	return filepath.Join(s.Root, unpackedDir, strings.TrimPrefix(manifestDigest, "sha256:"))
}
