// Package ocilayout reads and writes OCI image layouts on disk (the image-spec's directory of
// index.json, oci-layout and content-addressed blobs), the only image source podspec knows:
// manifests name images as `oci:PATH[:TAG|@DIGEST]`.
//
// ParseReference parses such a reference; Resolve reads a layout (index.json → manifest →
// config) and verifies the size and sha256 digest of every blob it uses; OpenLayer streams a
// layer's uncompressed tar while verifying it again; Build writes a layout holding one
// single-layer image made of a directory and files (busybox, static binaries), for tests,
// examples and the conformance suite.
//
// The package is shared by the reference runtime (which unpacks what Resolve returns) and the
// conformance suite (which builds its test images with Build); it never pulls from registries
// and never runs anything from an image.
package ocilayout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Errors returned (wrapped) by Resolve and Unpack; test with errors.Is.
var (
	// ErrInvalidReference means the reference text is not `oci:PATH[:TAG|@DIGEST]`.
	ErrInvalidReference = errors.New("invalid image reference")
	// ErrNotFound means the layout, tag or a blob does not exist.
	ErrNotFound = errors.New("image not found")
	// ErrDigestMismatch means a blob's content does not match its digest.
	ErrDigestMismatch = errors.New("blob digest mismatch")
	// ErrUnsupported means the layout uses something this package does not handle (zstd
	// layers, non-sha256 digests, foreign media types).
	ErrUnsupported = errors.New("unsupported image content")
)

// Image is a resolved image: its manifest digest, verified manifest and config, and the
// runtime-relevant part of its configuration.
type Image struct {
	// Ref is the reference the image was resolved from.
	Ref Reference
	// Digest is the manifest digest ("sha256:<hex>"); images are unpacked once per digest.
	Digest string
	// Manifest and Config are the decoded, digest-verified documents.
	Manifest ocispec.Manifest
	Config   ocispec.Image
	// Entrypoint, Cmd, Env, WorkingDir, User and StopSignal copy Config.Config.
	Entrypoint []string
	Cmd        []string
	Env        []string
	WorkingDir string
	User       string
	StopSignal string
}

// Resolve reads the layout of ref, selects the manifest (by digest; by tag; or, when neither
// is given, the only manifest for this platform — several are an error), and verifies the digest
// (and size) of the manifest, the config and every layer blob. An image index nested in
// index.json is followed to the manifest for this machine's platform.
//
// Layer blobs are only needed for unpacking: when skipLayers (may be nil) reports true for the
// selected manifest digest — which pins every layer digest —, for instance because the layers
// are unpacked already, layer blobs are checked for a supported media type but not re-hashed, so
// resolving costs two small reads. Errors wrap ErrNotFound, ErrDigestMismatch or
// ErrUnsupported and name the layout.
func Resolve(ctx context.Context, ref Reference, skipLayers func(manifestDigest string) bool) (*Image, error) {
	img, err := resolve(ctx, ref, skipLayers)
	if err != nil {
		return nil, fmt.Errorf("resolve image %s: %w", ref, err)
	}
	return img, nil
}

func resolve(ctx context.Context, ref Reference, skipLayers func(string) bool) (*Image, error) {
	if fi, err := os.Stat(ref.Path); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not an OCI image layout directory", ErrNotFound, ref.Path)
	}
	var layout ocispec.ImageLayout
	if err := readJSON(filepath.Join(ref.Path, ocispec.ImageLayoutFile), maxLayoutFile, &layout); err != nil {
		if errors.Is(err, ErrUnsupported) {
			return nil, fmt.Errorf("read %s: %w", ocispec.ImageLayoutFile, err)
		}
		return nil, fmt.Errorf("%w: %s is not an OCI image layout (%s): %v", ErrNotFound, ref.Path, ocispec.ImageLayoutFile, err)
	}
	if layout.Version != ocispec.ImageLayoutVersion {
		return nil, fmt.Errorf("%w: layout version %q (want %s)", ErrUnsupported, layout.Version, ocispec.ImageLayoutVersion)
	}
	var index ocispec.Index
	if err := readJSON(filepath.Join(ref.Path, ocispec.ImageIndexFile), maxIndex, &index); err != nil {
		if errors.Is(err, ErrUnsupported) {
			return nil, fmt.Errorf("read %s: %w", ocispec.ImageIndexFile, err)
		}
		return nil, fmt.Errorf("%w: read index.json: %v", ErrNotFound, err)
	}
	desc, err := selectManifest(ref, index)
	if err != nil {
		return nil, err
	}
	for depth := 0; desc.MediaType == ocispec.MediaTypeImageIndex; depth++ {
		if depth > 4 {
			return nil, fmt.Errorf("%w: image indexes nested too deeply", ErrUnsupported)
		}
		var nested ocispec.Index
		if err := readBlobJSON(ctx, ref.Path, desc, &nested); err != nil {
			return nil, err
		}
		desc, err = selectPlatform(nested)
		if err != nil {
			return nil, err
		}
	}
	if desc.MediaType != ocispec.MediaTypeImageManifest && desc.MediaType != mediaTypeDockerManifest {
		return nil, fmt.Errorf("%w: manifest media type %q", ErrUnsupported, desc.MediaType)
	}
	img := &Image{Ref: ref, Digest: string(desc.Digest)}
	if err := readBlobJSON(ctx, ref.Path, desc, &img.Manifest); err != nil {
		return nil, err
	}
	switch img.Manifest.Config.MediaType {
	case ocispec.MediaTypeImageConfig, mediaTypeDockerConfig:
	default:
		return nil, fmt.Errorf("%w: config media type %q", ErrUnsupported, img.Manifest.Config.MediaType)
	}
	if err := readBlobJSON(ctx, ref.Path, img.Manifest.Config, &img.Config); err != nil {
		return nil, err
	}
	if len(img.Manifest.Layers) != len(img.Config.RootFS.DiffIDs) {
		return nil, fmt.Errorf("%w: manifest has %d layers but config lists %d diff ids", ErrUnsupported, len(img.Manifest.Layers), len(img.Config.RootFS.DiffIDs))
	}
	cached := skipLayers != nil && skipLayers(img.Digest)
	for _, l := range img.Manifest.Layers {
		if _, err := layerCompression(l.MediaType); err != nil {
			return nil, err
		}
		if cached {
			continue
		}
		if err := verifyBlob(ctx, ref.Path, l); err != nil {
			return nil, err
		}
	}
	c := img.Config.Config
	img.Entrypoint, img.Cmd, img.Env = c.Entrypoint, c.Cmd, c.Env
	img.WorkingDir, img.User, img.StopSignal = c.WorkingDir, c.User, c.StopSignal
	return img, nil
}

// Docker media types that are byte-compatible with their OCI counterparts.
const (
	mediaTypeDockerManifest  = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerConfig    = "application/vnd.docker.container.image.v1+json"
	mediaTypeDockerLayerGzip = "application/vnd.docker.image.rootfs.diff.tar.gzip"
)

func selectManifest(ref Reference, index ocispec.Index) (ocispec.Descriptor, error) {
	if ref.Digest != "" {
		for _, m := range index.Manifests {
			if string(m.Digest) == ref.Digest {
				return m, nil
			}
		}
		return ocispec.Descriptor{}, fmt.Errorf("%w: no manifest with digest %s in %s", ErrNotFound, ref.Digest, filepath.Join(ref.Path, ocispec.ImageIndexFile))
	}
	if ref.Tag == "" {
		// No tag: only an unambiguous layout resolves (spec IMG-006).
		var candidates []ocispec.Descriptor
		for _, m := range index.Manifests {
			if m.Platform == nil || platformMatches(*m.Platform) {
				candidates = append(candidates, m)
			}
		}
		switch len(candidates) {
		case 1:
			return candidates[0], nil
		case 0:
			return ocispec.Descriptor{}, fmt.Errorf("%w: layout %s holds no image for linux/%s", ErrNotFound, ref.Path, runtime.GOARCH)
		}
		return ocispec.Descriptor{}, fmt.Errorf("%w: layout %s holds %d images; name one with :TAG or @DIGEST (tags: %s)",
			ErrNotFound, ref.Path, len(candidates), strings.Join(tagsOf(index), ", "))
	}
	for _, m := range index.Manifests {
		if m.Annotations[ocispec.AnnotationRefName] == ref.Tag {
			return m, nil
		}
	}
	return ocispec.Descriptor{}, fmt.Errorf("%w: tag %q not in layout %s (tags: %s)", ErrNotFound, ref.Tag, ref.Path, strings.Join(tagsOf(index), ", "))
}

func tagsOf(index ocispec.Index) []string {
	var tags []string
	for _, m := range index.Manifests {
		if name := m.Annotations[ocispec.AnnotationRefName]; name != "" {
			tags = append(tags, name)
		}
	}
	sort.Strings(tags)
	if len(tags) == 0 {
		tags = []string{"none"}
	}
	return tags
}

func platformMatches(p ocispec.Platform) bool {
	return p.OS == "linux" && p.Architecture == runtime.GOARCH
}

func selectPlatform(index ocispec.Index) (ocispec.Descriptor, error) {
	for _, m := range index.Manifests {
		if m.Platform == nil || platformMatches(*m.Platform) {
			return m, nil
		}
	}
	return ocispec.Descriptor{}, fmt.Errorf("%w: image index has no manifest for linux/%s", ErrNotFound, runtime.GOARCH)
}

// readJSON decodes a file of the layout that declares no size (index.json, oci-layout): a
// regular file, not a link, of at most limit bytes.
func readJSON(path string, limit int64, v any) error {
	b, err := readLayoutFile(path, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}
