package registry

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A pull renames its layout into place before it records its reference: a prune in between
// finds a layout no record names. One that appeared within the grace period is kept; once it is
// older, and still unnamed, it goes.
func TestPruneKeepsALayoutAPullHasNotRecordedYet(t *testing.T) {
	s := &Store{Root: t.TempDir()}
	d := "sha256:ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	dir := s.layoutPath(d)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	removed, err := s.Prune(nil, time.Minute)
	if err != nil || len(removed) != 0 {
		t.Fatalf("prune of a layout just renamed into place: removed %v, %v; want it kept", removed, err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the layout is gone: %v", err)
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	removed, err = s.Prune(nil, time.Minute)
	if err != nil || len(removed) != 1 || removed[0] != d {
		t.Fatalf("prune of an old unnamed layout: removed %v, %v; want %s", removed, err, d)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the old layout is still there: %v", err)
	}
}
