package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/imageref"
)

// Held is an image the store holds for a reference.
type Held struct {
	// Image is the reference, fully qualified; Digest the manifest it resolved to.
	Image  string    `json:"image"`
	Digest string    `json:"digest"`
	Pulled time.Time `json:"pulled"`
}

// List returns what the store holds, by reference, sorted.
func (s *Store) List() ([]Held, error) {
	ents, err := os.ReadDir(filepath.Join(s.Root, "refs"))
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []Held
	for _, e := range ents {
		var rec refRecord
		data, err := os.ReadFile(filepath.Join(s.Root, "refs", e.Name()))
		if err != nil || json.Unmarshal(data, &rec) != nil {
			continue
		}
		if _, err := os.Stat(s.layoutPath(rec.Digest)); err != nil {
			continue
		}
		out = append(out, Held{Image: rec.Ref, Digest: rec.Digest, Pulled: rec.Pulled})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Image < out[j].Image })
	return out, nil
}

// ErrInUse is Forget's refusal of an image a pod uses.
var ErrInUse = errors.New("used by a pod")

// Forget removes what the store holds for a reference: its record, and the image itself when
// no other reference names it and inUse does not hold its digest (else ErrInUse). It returns
// the digest removed, "" when the image stays.
func (s *Store) Forget(image string, inUse map[string]bool) (string, error) {
	ref, err := imageref.Parse(image)
	if err != nil {
		return "", err
	}
	p, err := s.Lookup(ref)
	if err != nil {
		return "", err
	}
	if inUse[p.Digest] {
		return "", fmt.Errorf("image %s (%s) is %w", ref, p.Digest, ErrInUse)
	}
	if err := os.Remove(s.refPath(ref)); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	held, err := s.List()
	if err != nil {
		return "", err
	}
	for _, h := range held {
		if h.Digest == p.Digest {
			return "", nil // another reference names it
		}
	}
	return p.Digest, s.removeLayout(p.Digest)
}

// Prune removes every image no pod uses (inUse, by manifest digest) and no reference recorded
// in the last grace period names, with their records, then every blob no layout links and what
// pulls older than grace left under tmp/. It returns the manifest digests removed.
func (s *Store) Prune(inUse map[string]bool, grace time.Duration) ([]string, error) {
	cutoff := time.Now().Add(-grace)
	recent := map[string]bool{}
	ents, _ := os.ReadDir(filepath.Join(s.Root, "refs"))
	for _, e := range ents {
		p := filepath.Join(s.Root, "refs", e.Name())
		var rec refRecord
		data, err := os.ReadFile(p)
		if err != nil || json.Unmarshal(data, &rec) != nil {
			continue
		}
		switch {
		case inUse[rec.Digest] || rec.Pulled.After(cutoff):
			recent[rec.Digest] = true
		default:
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	var removed []string
	layouts, _ := os.ReadDir(filepath.Join(s.Root, "layouts"))
	for _, l := range layouts {
		d := "sha256:" + l.Name()
		if inUse[d] || recent[d] {
			continue
		}
		// A pull renames its layout into place before it writes its reference's record: a
		// layout that appeared in the grace period is kept as a recent record would keep it.
		if fi, err := l.Info(); err != nil || fi.ModTime().After(cutoff) {
			continue
		}
		if err := s.removeLayout(d); err != nil {
			return removed, err
		}
		removed = append(removed, d)
	}
	blobs, _ := os.ReadDir(filepath.Join(s.Root, "blobs", "sha256"))
	for _, b := range blobs {
		p := filepath.Join(s.Root, "blobs", "sha256", b.Name())
		if st, err := os.Stat(p); err == nil && st.Sys().(*syscall.Stat_t).Nlink == 1 && st.ModTime().Before(cutoff) {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return removed, err
			}
		}
	}
	tmp, _ := os.ReadDir(filepath.Join(s.Root, "tmp"))
	for _, e := range tmp {
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.RemoveAll(filepath.Join(s.Root, "tmp", e.Name()))
		}
	}
	return removed, nil
}

// removeLayout removes an image's layout, renamed away first so that a reader never sees half of
// it.
func (s *Store) removeLayout(digest string) error {
	hexd := strings.TrimPrefix(digest, "sha256:")
	dir := s.layoutPath(digest)
	gone := filepath.Join(s.Root, "tmp", "removed-"+hexd)
	if err := os.MkdirAll(filepath.Dir(gone), 0o700); err != nil {
		return err
	}
	if err := os.Rename(dir, gone); err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return os.RemoveAll(gone)
}
