package image

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/ocilayout"
)

// keptDir holds, under the store's Root, one <manifest-hex>.json per kept image.
const keptDir = "kept"

// Keep records a resolved image so that instances created later start from this content even
// if its layout is changed or removed afterwards (IMG-004): it unpacks the image into the cache
// (layer digests verified) and stores the resolution — manifest, config, reference — beside it.
func (s *Store) Keep(ctx context.Context, img *ocilayout.Image) error {
	if _, err := s.Unpack(ctx, img); err != nil {
		return err
	}
	data, err := json.Marshal(img)
	if err != nil {
		return fmt.Errorf("keep %s: %w", img.Ref, err)
	}
	if old, err := os.ReadFile(s.keptPath(img.Digest)); err == nil && bytes.Equal(old, data) {
		return nil // kept already, as it is: no write (and no fsync) for each new pod
	}
	if err := os.MkdirAll(filepath.Join(s.Root, keptDir), 0o700); err != nil {
		return fmt.Errorf("keep %s: %w", img.Ref, err)
	}
	if err := atomicfile.WriteFile(s.keptPath(img.Digest), data, 0o644); err != nil {
		return fmt.Errorf("keep %s: %w", img.Ref, err)
	}
	return nil
}

// Kept returns the image Keep recorded for a manifest digest, provided its unpacked root
// filesystem is still cached; otherwise an error wrapping ocilayout.ErrNotFound.
func (s *Store) Kept(digest string) (*ocilayout.Image, error) {
	if s.Root == "" || !ocilayout.ValidDigest(digest) {
		return nil, fmt.Errorf("%w: no kept image %s", ocilayout.ErrNotFound, digest)
	}
	if fi, err := os.Stat(s.rootfsPath(digest)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: image %s is not unpacked", ocilayout.ErrNotFound, digest)
	}
	data, err := os.ReadFile(s.keptPath(digest))
	if err != nil {
		return nil, fmt.Errorf("%w: no kept image %s: %v", ocilayout.ErrNotFound, digest, err)
	}
	var img ocilayout.Image
	if err := json.Unmarshal(data, &img); err != nil || img.Digest != digest {
		return nil, fmt.Errorf("%w: kept image %s is unreadable", ocilayout.ErrNotFound, digest)
	}
	return &img, nil
}

func (s *Store) keptPath(digest string) string {
	return filepath.Join(s.Root, keptDir, strings.TrimPrefix(digest, "sha256:")+".json")
}
