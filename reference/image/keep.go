package image

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/flock"
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

// Prune removes the unpacked root filesystem and the kept resolution of every manifest digest
// that inUse does not hold and that was unpacked or kept more than grace ago (a pod being
// created may have kept it a moment ago, before its state names it). It returns the digests
// removed.
func (s *Store) Prune(inUse map[string]bool, grace time.Duration) ([]string, error) {
	cutoff := time.Now().Add(-grace)
	ents, err := os.ReadDir(filepath.Join(s.Root, unpackedDir))
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		d := "sha256:" + e.Name()
		if inUse[d] || !ocilayout.ValidDigest(d) {
			continue
		}
		recent := false
		for _, p := range []string{s.rootfsPath(d), s.keptPath(d)} {
			if fi, err := os.Stat(p); err == nil && fi.ModTime().After(cutoff) {
				recent = true
			}
		}
		if recent {
			continue
		}
		if err := s.Remove(d); err != nil {
			return removed, err
		}
		removed = append(removed, d)
	}
	return removed, nil
}

// Remove removes the unpacked root filesystem and the kept resolution of a manifest digest,
// under the digest's lock; the directory is renamed away first, so no reader sees half of it.
func (s *Store) Remove(digest string) error {
	if !ocilayout.ValidDigest(digest) {
		return fmt.Errorf("remove %s: %w", digest, ocilayout.ErrUnsupported)
	}
	hexd := strings.TrimPrefix(digest, "sha256:")
	for _, d := range []string{"locks", "tmp"} {
		if err := os.MkdirAll(filepath.Join(s.Root, d), 0o700); err != nil {
			return err
		}
	}
	unlock, err := flock.Exclusive(context.Background(), filepath.Join(s.Root, "locks", hexd+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	os.Remove(s.keptPath(digest))
	gone := filepath.Join(s.Root, "tmp", "removed-"+hexd)
	if err := os.Rename(s.rootfsPath(digest), gone); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return fmt.Errorf("remove %s: %w", digest, err)
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("remove %s: %w", digest, err)
	}
	return nil
}
