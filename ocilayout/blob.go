package ocilayout

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// blobPath returns the path of a blob in a layout, checking the digest's form first (so a
// descriptor can never name a file outside blobs/sha256).
func blobPath(layout string, d ocispec.Descriptor) (string, error) {
	if !digestRE.MatchString(string(d.Digest)) {
		return "", fmt.Errorf("%w: digest %q (only sha256 is supported)", ErrUnsupported, d.Digest)
	}
	return filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(string(d.Digest), "sha256:")), nil
}

// readBlobJSON reads a small JSON blob (at most maxJSONBlob bytes), verifies its size and
// digest, and decodes it.
func readBlobJSON(ctx context.Context, layout string, d ocispec.Descriptor, v any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.Size > maxJSONBlob {
		return fmt.Errorf("%w: %s blob %s is %d bytes (max %d)", ErrUnsupported, d.MediaType, d.Digest, d.Size, maxJSONBlob)
	}
	f, r, err := openBlob(layout, d)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(ctxReader{ctx, r})
	if err != nil {
		return fmt.Errorf("read blob %s: %w", d.Digest, err)
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

// verifyBlob streams a blob (at most its declared size and one byte) and checks its size and
// digest.
func verifyBlob(ctx context.Context, layout string, d ocispec.Descriptor) error {
	f, r, err := openBlob(layout, d)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, r})
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

// Compression of a layer blob.
type compression int

const (
	compressionNone compression = iota
	compressionGzip
)

// layerCompression maps a layer media type to its compression; foreign ones are ErrUnsupported.
func layerCompression(mediaType string) (compression, error) {
	switch mediaType {
	//lint:ignore SA1019 non-distributable layers are deprecated for writers, still valid to read
	case ocispec.MediaTypeImageLayer, ocispec.MediaTypeImageLayerNonDistributable:
		return compressionNone, nil
	//lint:ignore SA1019 non-distributable layers are deprecated for writers, still valid to read
	case ocispec.MediaTypeImageLayerGzip, ocispec.MediaTypeImageLayerNonDistributableGzip, mediaTypeDockerLayerGzip:
		return compressionGzip, nil
	}
	return 0, fmt.Errorf("%w: layer media type %q (tar and tar+gzip are supported)", ErrUnsupported, mediaType)
}

// Layer is one layer blob opened for extraction: reading it gives the layer's uncompressed
// tar stream, while the blob and the stream are hashed. Verify checks both digests once the
// reader is done with the stream.
type Layer struct {
	d        ocispec.Descriptor
	diffID   string
	f        *os.File
	counted  *countingReader
	gz       *gzip.Reader
	tar      io.Reader
	blobHash hash.Hash
	diffHash hash.Hash
}

// OpenLayer verifies the size and digest of layer blob d of the layout (so a damaged blob gives
// a digest error, not a decompression error) and opens it for extraction; diffID, when not
// empty, is the digest the config gives its uncompressed content. The caller reads the tar
// stream, then calls Verify (the blob could change between the two reads), and Close.
func OpenLayer(ctx context.Context, layout string, d ocispec.Descriptor, diffID string) (*Layer, error) {
	comp, err := layerCompression(d.MediaType)
	if err != nil {
		return nil, err
	}
	if err := verifyBlob(ctx, layout, d); err != nil {
		return nil, err
	}
	f, r, err := openBlob(layout, d)
	if err != nil {
		return nil, err
	}
	l := &Layer{d: d, diffID: diffID, f: f, blobHash: sha256.New(), diffHash: sha256.New()}
	l.counted = &countingReader{r: io.TeeReader(ctxReader{ctx, r}, l.blobHash)}
	var tr io.Reader = l.counted
	if comp == compressionGzip {
		gz, err := gzip.NewReader(l.counted)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("gzip: %w", err)
		}
		l.gz = gz
		tr = gz
	}
	l.tar = tr
	return l, nil
}

// Read reads the uncompressed tar stream.
func (l *Layer) Read(p []byte) (int, error) {
	n, err := l.tar.Read(p)
	l.diffHash.Write(p[:n])
	return n, err
}

// Verify reads what the tar reader left (padding, the gzip trailer), so both digests cover the
// whole blob, and checks the blob's size and digest and the diff id; errors wrap
// ErrDigestMismatch.
func (l *Layer) Verify() error {
	if _, err := io.Copy(l.diffHash, l.tar); err != nil {
		return fmt.Errorf("read layer: %w", err)
	}
	if _, err := io.Copy(io.Discard, l.counted); err != nil {
		return fmt.Errorf("read layer: %w", err)
	}
	var sum [32]byte
	copy(sum[:], l.blobHash.Sum(nil))
	if err := checkDigest(l.d, l.counted.n, sum); err != nil {
		return err
	}
	if l.diffID != "" {
		if got := fmt.Sprintf("sha256:%x", l.diffHash.Sum(nil)); got != l.diffID {
			return fmt.Errorf("%w: uncompressed layer digest %s, config diff id %s", ErrDigestMismatch, got, l.diffID)
		}
	}
	return nil
}

// Close closes the blob.
func (l *Layer) Close() error {
	if l.gz != nil {
		l.gz.Close()
	}
	return l.f.Close()
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
