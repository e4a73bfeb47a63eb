package image

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

// mutantFirstImage is mutant.UntaggedTakesFirst's reference: an untagged reference to a layout
// of several images pinned to the digest of the first, where IMG-006 refuses it. Only the
// mutant build links it (the switch is constant false otherwise).
func mutantFirstImage(ref ocilayout.Reference) ocilayout.Reference {
	b, err := os.ReadFile(filepath.Join(ref.Path, ocispec.ImageIndexFile))
	if err != nil {
		return ref
	}
	var index ocispec.Index
	if json.Unmarshal(b, &index) != nil || len(index.Manifests) < 2 {
		return ref
	}
	ref.Digest = string(index.Manifests[0].Digest)
	return ref
}

// mutantLayersUnchecked is mutant.LayerDigestUnchecked's skipLayers for ocilayout.Resolve:
// every image counts as unpacked, so resolution checks the layers' media types but hashes no
// layer blob (the manifest and config are still verified). Only the mutant build links it.
func mutantLayersUnchecked(string) bool { return true }

// mutantUnpackUnverified is mutant.LayerDigestUnchecked's unpack of one layer: the blob, of the
// size its descriptor declares, is extracted as it is, with neither its digest nor the config's
// diff id checked (IMG-007 verifies both). Only the mutant build links it.
func mutantUnpackUnverified(layout string, d ocispec.Descriptor, root string) error {
	hexd, ok := strings.CutPrefix(string(d.Digest), "sha256:")
	if !ok || !ocilayout.ValidDigest(string(d.Digest)) {
		return fmt.Errorf("%w: digest %q", ocilayout.ErrUnsupported, d.Digest)
	}
	f, err := os.Open(filepath.Join(layout, ocispec.ImageBlobsDir, "sha256", hexd))
	if err != nil {
		return fmt.Errorf("%w: blob %s: %v", ocilayout.ErrNotFound, d.Digest, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != d.Size {
		return fmt.Errorf("%w: blob %s is %d bytes, descriptor says %d", ocilayout.ErrDigestMismatch, d.Digest, fi.Size(), d.Size)
	}
	var r io.Reader = f
	if strings.HasSuffix(d.MediaType, "gzip") { // Resolve let only tar and tar+gzip through
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		defer gz.Close()
		r = gz
	}
	return extractLayer(r, root)
}
