// Package image reads, unpacks and builds OCI image layouts on disk, the only image source of
// the reference runtime (manifests reference images as `oci:PATH[:TAG|@DIGEST]`).
//
// Resolve reads a layout (index.json → manifest → config) and verifies the sha256 digest of
// every blob it uses; Unpack extracts an image's layers once per manifest digest into a cache
// directory, path-safely; NewRootfs gives every container instance a fresh, writable root
// filesystem on top of that cache (overlayfs, or a copy when overlayfs cannot be mounted);
// Build writes a layout from a directory and files (busybox, static binaries), for tests,
// examples and the conformance suite.
//
// The package never pulls from registries and never runs anything from an image.
package image

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// Transport is the only reference transport supported.
const Transport = "oci:"

// DefaultTag is the tag Build gives an image when none is requested. Resolving a reference
// without a tag does not look for it: it needs a layout holding exactly one image.
const DefaultTag = "latest"

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

// The patterns leave lengths to a check of their own: the regexp package compiles a bounded
// repetition such as {0,127} into one instruction per repetition, which cost every process
// that links this package 3 ms at start.
var (
	tagRE    = sizedRE{regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`), 1, 128}
	digestRE = sizedRE{regexp.MustCompile(`^sha256:[a-f0-9]*$`), 71, 71}
)

// sizedRE is a pattern that matches only strings of min to max bytes.
type sizedRE struct {
	re       *regexp.Regexp
	min, max int
}

// MatchString reports whether s has an allowed length and matches the pattern.
func (r sizedRE) MatchString(s string) bool {
	return len(s) >= r.min && len(s) <= r.max && r.re.MatchString(s)
}

// Reference is a parsed `oci:PATH[:TAG|@DIGEST]` image reference.
type Reference struct {
	// Path is the layout directory, absolute and clean.
	Path string
	// Tag is the requested tag (the org.opencontainers.image.ref.name annotation), empty when
	// Digest is set or no tag was given.
	Tag string
	// Digest is the requested manifest digest ("sha256:<hex>"), empty when none was given.
	Digest string
}

// String renders the reference with its absolute path.
func (r Reference) String() string {
	switch {
	case r.Digest != "":
		return Transport + r.Path + "@" + r.Digest
	case r.Tag != "":
		return Transport + r.Path + ":" + r.Tag
	}
	return Transport + r.Path
}

// ParseReference parses `oci:PATH[:TAG|@DIGEST]`. A relative PATH is resolved against
// baseDir (the directory of the manifest that names the image). The text after the last ':'
// of PATH is a tag when it is a valid tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127}, so it holds no
// '/'); to use a layout directory whose name contains ':', end the path with '/' or give a tag.
// Other transports (docker://, registry names) are rejected as unsupported.
func ParseReference(ref, baseDir string) (Reference, error) {
	rest, ok := strings.CutPrefix(ref, Transport)
	if !ok {
		if i := strings.Index(ref, ":"); i > 0 && !strings.Contains(ref[:i], "/") {
			return Reference{}, fmt.Errorf("%w %q: transport %q is not supported (only oci:PATH[:TAG|@DIGEST])", ErrInvalidReference, ref, ref[:i])
		}
		return Reference{}, fmt.Errorf("%w %q: want oci:PATH[:TAG|@DIGEST] (registry images are not supported)", ErrInvalidReference, ref)
	}
	var r Reference
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		r.Digest = rest[i+1:]
		rest = rest[:i]
		if !digestRE.MatchString(r.Digest) {
			return Reference{}, fmt.Errorf("%w %q: digest %q is not sha256:<64 lowercase hex>", ErrInvalidReference, ref, r.Digest)
		}
	} else if i := strings.LastIndex(rest, ":"); i >= 0 && tagRE.MatchString(rest[i+1:]) {
		r.Tag = rest[i+1:]
		rest = rest[:i]
	} else if i >= 0 && !strings.Contains(rest[i+1:], "/") && rest[i+1:] != "" {
		return Reference{}, fmt.Errorf("%w %q: tag %q is not valid ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})", ErrInvalidReference, ref, rest[i+1:])
	}
	if rest == "" {
		return Reference{}, fmt.Errorf("%w %q: empty layout path", ErrInvalidReference, ref)
	}
	if strings.ContainsRune(rest, 0) {
		return Reference{}, fmt.Errorf("%w %q: NUL in path", ErrInvalidReference, ref)
	}
	p := rest
	if !filepath.IsAbs(p) {
		if baseDir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return Reference{}, fmt.Errorf("resolve %q: %w", ref, err)
			}
			baseDir = wd
		}
		p = filepath.Join(baseDir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Reference{}, fmt.Errorf("resolve %q: %w", ref, err)
	}
	r.Path = abs
	return r, nil
}

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

// Store resolves images and caches their unpacked root filesystems under Root.
//
// Layout of Root: rootfs/<manifest-hex>/ (unpacked, read-only by convention), locks/ (one lock
// file per digest), tmp/ (unpacks in progress).
type Store struct {
	// Root is the cache directory, e.g. /var/lib/podspec/images.
	Root string
}

// Resolve reads the layout of ref, selects the manifest (by digest; by tag; or, when neither
// is given, the only manifest for this platform — several are an error), and verifies the digest (and
// size) of the manifest, the config and every layer blob. An image index nested in index.json
// is followed to the manifest for this machine's platform.
//
// Layer blobs are only needed for unpacking: when the store already holds the unpacked root
// filesystem of the selected manifest digest (which pins every layer digest), layer blobs are
// not re-hashed, so resolving a cached image costs two small reads.
func (s *Store) Resolve(ctx context.Context, ref Reference) (*Image, error) {
	unpacked := func(manifestDigest string) bool {
		if s.Root == "" || !digestRE.MatchString(manifestDigest) {
			return false
		}
		fi, err := os.Stat(filepath.Join(s.Root, "rootfs", strings.TrimPrefix(manifestDigest, "sha256:")))
		return err == nil && fi.IsDir()
	}
	img, err := resolve(ctx, ref, unpacked)
	if err != nil {
		return nil, fmt.Errorf("resolve image %s: %w", ref, err)
	}
	return img, nil
}

func resolve(ctx context.Context, ref Reference, unpacked func(string) bool) (*Image, error) {
	if fi, err := os.Stat(ref.Path); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not an OCI image layout directory", ErrNotFound, ref.Path)
	}
	var layout ocispec.ImageLayout
	if err := readJSON(filepath.Join(ref.Path, ocispec.ImageLayoutFile), &layout); err != nil {
		return nil, fmt.Errorf("%w: %s is not an OCI image layout (%s): %v", ErrNotFound, ref.Path, ocispec.ImageLayoutFile, err)
	}
	if layout.Version != ocispec.ImageLayoutVersion {
		return nil, fmt.Errorf("%w: layout version %q (want %s)", ErrUnsupported, layout.Version, ocispec.ImageLayoutVersion)
	}
	var index ocispec.Index
	if err := readJSON(filepath.Join(ref.Path, ocispec.ImageIndexFile), &index); err != nil {
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
	cached := unpacked(img.Digest)
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

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// blobPath returns the path of a blob in a layout, checking the digest's form first (so a
// descriptor can never name a file outside blobs/sha256).
func blobPath(layout string, d ocispec.Descriptor) (string, error) {
	if !digestRE.MatchString(string(d.Digest)) {
		return "", fmt.Errorf("%w: digest %q (only sha256 is supported)", ErrUnsupported, d.Digest)
	}
	return filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(string(d.Digest), "sha256:")), nil
}

// readBlobJSON reads a small JSON blob, verifies its size and digest, and decodes it.
func readBlobJSON(ctx context.Context, layout string, d ocispec.Descriptor, v any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p, err := blobPath(layout, d)
	if err != nil {
		return err
	}
	const maxJSON = 16 << 20
	if d.Size > maxJSON {
		return fmt.Errorf("%w: %s blob %s is %d bytes (max %d)", ErrUnsupported, d.MediaType, d.Digest, d.Size, maxJSON)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("%w: blob %s (%s): %v", ErrNotFound, d.Digest, d.MediaType, err)
	}
	if err := checkDigest(d, int64(len(b)), sha256.Sum256(b)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s blob %s: %w", d.MediaType, d.Digest, err)
	}
	return nil
}

func checkDigest(d ocispec.Descriptor, size int64, sum [32]byte) error {
	got := "sha256:" + hex.EncodeToString(sum[:])
	if got != string(d.Digest) {
		return fmt.Errorf("%w: blob %s (%s) has content digest %s", ErrDigestMismatch, d.Digest, d.MediaType, got)
	}
	if d.Size != size {
		return fmt.Errorf("%w: blob %s (%s) is %d bytes, descriptor says %d", ErrDigestMismatch, d.Digest, d.MediaType, size, d.Size)
	}
	return nil
}

// verifyBlob streams a blob and checks its size and digest.
func verifyBlob(ctx context.Context, layout string, d ocispec.Descriptor) error {
	p, err := blobPath(layout, d)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("%w: blob %s (%s): %v", ErrNotFound, d.Digest, d.MediaType, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	if err != nil {
		return fmt.Errorf("read blob %s: %w", d.Digest, err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return checkDigest(d, n, sum)
}

// ctxReader stops a long copy when the context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
