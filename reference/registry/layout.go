package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/ocilayout"
)

// errDigestMismatch is content whose digest or size is not the one its descriptor names.
var errDigestMismatch = errors.New("content does not match its digest")

// errPlainHTTP is a plain HTTP request to a registry that may not have one.
var errPlainHTTP = errors.New("plain HTTP refused")

// writeLayout writes the layout of one image manifest: every blob the store lacks is fetched
// and verified into blobs/, the layout is assembled under tmp/ from hard links and renamed into
// layouts/ when whole. The caller holds the manifest's lock.
func (s *Store) writeLayout(ctx context.Context, image string, ref imageref.Reference, img v1.Image, manifestDigest string) error {
	hexd := strings.TrimPrefix(manifestDigest, "sha256:")
	// What a pull of this manifest killed midway left; nobody else holds the lock.
	if stale, err := filepath.Glob(filepath.Join(s.Root, "tmp", "layout-"+hexd[:12]+"-*")); err == nil {
		for _, d := range stale {
			_ = os.RemoveAll(d)
		}
	}
	rawManifest, err := img.RawManifest()
	if err != nil {
		return err
	}
	if err := s.putBlob(manifestDigest, int64(len(rawManifest)), bytes.NewReader(rawManifest)); err != nil {
		return fmt.Errorf("manifest %s: %w", manifestDigest, err)
	}
	mt, err := img.MediaType()
	if err != nil {
		return err
	}
	m, err := img.Manifest()
	if err != nil {
		return err
	}
	rawConfig, err := img.RawConfigFile()
	if err != nil {
		return err
	}
	if err := s.putBlob(m.Config.Digest.String(), m.Config.Size, bytes.NewReader(rawConfig)); err != nil {
		return fmt.Errorf("config %s: %w", m.Config.Digest, err)
	}
	blobs := []string{manifestDigest, m.Config.Digest.String()}
	progress := s.startProgress(image, m)
	defer progress.stop()
	for _, l := range m.Layers {
		d := l.Digest.String()
		blobs = append(blobs, d)
		if fi, err := os.Stat(s.blobPath(d)); err == nil && fi.Size() == l.Size {
			progress.add(l.Size)
			continue // a layer pulled once serves every image that holds it
		}
		layer, err := img.LayerByDigest(l.Digest)
		if err != nil {
			return fmt.Errorf("layer %s: %w", d, err)
		}
		rc, err := layer.Compressed()
		if err != nil {
			return fmt.Errorf("layer %s: %w", d, err)
		}
		err = s.putBlob(d, l.Size, progress.reader(ctx, rc))
		rc.Close()
		if err != nil {
			return fmt.Errorf("layer %s: %w", d, err)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Join(s.Root, "tmp"), "layout-"+hexd[:12]+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	if err := os.MkdirAll(filepath.Join(tmp, "blobs", "sha256"), 0o755); err != nil {
		return err
	}
	for _, d := range blobs {
		dst := filepath.Join(tmp, "blobs", "sha256", strings.TrimPrefix(d, "sha256:"))
		if err := os.Link(s.blobPath(d), dst); err != nil && !os.IsExist(err) {
			return err
		}
	}
	index := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{{
		MediaType: string(mt), Digest: digest.Digest(manifestDigest), Size: int64(len(rawManifest)),
		Annotations: map[string]string{"io.podspec.image.name": ref.String()},
	}}}
	index.SchemaVersion = 2
	files := map[string]any{ocispec.ImageLayoutFile: ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion}, ocispec.ImageIndexFile: index}
	for f, v := range files {
		data, _ := json.Marshal(v)
		if err := atomicfile.WriteFile(filepath.Join(tmp, f), data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.layoutPath(manifestDigest)); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Join(s.Root, "layouts"))
}

// putBlob writes r into blobs/ as the blob d, unless it is there already: to a temporary file
// first, hashed and counted as it is written, renamed into place only when its digest and size
// are the descriptor's (IMG-007, IMG-018).
func (s *Store) putBlob(d string, size int64, r io.Reader) error {
	if !ocilayout.ValidDigest(d) {
		return fmt.Errorf("%w: digest %q", ocilayout.ErrUnsupported, d)
	}
	final := s.blobPath(d)
	if fi, err := os.Stat(final); err == nil && fi.Size() == size {
		return nil
	}
	f, err := os.CreateTemp(filepath.Join(s.Root, "tmp"), "blob-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); n != size || got != d {
		return fmt.Errorf("%w: got %d bytes with digest %s, want %d bytes with digest %s", errDigestMismatch, n, got, size, d)
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), final)
}
