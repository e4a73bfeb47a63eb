package framework

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mkTree makes root/a/b/file with the given modes (chmod, so the umask does not matter).
func mkTree(t *testing.T, root string, rootMode, aMode, bMode, fileMode os.FileMode) string {
	t.Helper()
	file := filepath.Join(root, "a", "b", "file")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("state"), 0o600); err != nil {
		t.Fatal(err)
	}
	for p, m := range map[string]os.FileMode{root: rootMode, filepath.Join(root, "a"): aMode, filepath.Join(root, "a", "b"): bMode, file: fileMode} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	return file
}

func TestExposedState(t *testing.T) {
	me := uint32(os.Geteuid())
	for _, tc := range []struct {
		name             string
		root, a, b, file os.FileMode
		want             []string // exposed paths, relative to the root ("." the root)
	}{
		{"a private root hides a world-readable tree", 0o700, 0o755, 0o755, 0o644, nil},
		{"a search-only root passes through to what is readable below", 0o711, 0o755, 0o700, 0o644, []string{"a"}},
		{"a search-only chain down to a readable file exposes it", 0o711, 0o711, 0o711, 0o604, []string{"a/b/file"}},
		{"a world-readable root is exposed with every readable path it reaches", 0o755, 0o755, 0o700, 0o644, []string{".", "a"}},
		{"group read counts", 0o750, 0o700, 0o700, 0o600, []string{"."}},
		{"group search counts", 0o710, 0o740, 0o700, 0o600, []string{"a"}},
		{"everything private", 0o700, 0o700, 0o700, 0o600, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "state")
			mkTree(t, root, tc.root, tc.a, tc.b, tc.file)
			problems, exposed, more, err := ExposedState([]string{root}, me)
			if err != nil || len(problems) > 0 || more {
				t.Fatalf("err %v, problems %v, more %v", err, problems, more)
			}
			var got []string
			for _, e := range exposed {
				rel, _ := filepath.Rel(root, e.Path)
				got = append(got, rel)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("exposed %v, want %v", exposed, tc.want)
			}
		})
	}
}

func TestExposedStateCountsAnotherOwnersBits(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	mkTree(t, root, 0o700, 0o700, 0o700, 0o600)
	// Judged for a runtime owned by another uid: the owner class of the tree is someone else's.
	_, exposed, _, err := ExposedState([]string{root}, uint32(os.Geteuid())+1)
	if err != nil || len(exposed) != 4 || !strings.Contains(exposed[0].Via, "not the runtime's owner") {
		t.Fatalf("err %v, exposed %v", err, exposed)
	}
}

func TestExposedStateProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	problems, exposed, _, err := ExposedState([]string{"rel/dir", filepath.Join(dir, "absent"), file, link}, uint32(os.Geteuid()))
	if err != nil || len(exposed) != 0 {
		t.Fatalf("err %v, exposed %v", err, exposed)
	}
	want := []string{"not an absolute path", "no such file", "not a directory"}
	if len(problems) != len(want) {
		t.Fatalf("problems %q, want %d (the link to a private directory is fine)", problems, len(want))
	}
	for i, w := range want {
		if !strings.Contains(problems[i], w) {
			t.Errorf("problem %q does not say %q", problems[i], w)
		}
	}
}

func TestChangedSinceFindsTheOneRecentWrite(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "pods", "p1")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(deep, "state.json")
	outside := t.TempDir() // recent, but reached only through a symbolic link
	for _, f := range []string{state, filepath.Join(dir, "config")} {
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{state, filepath.Join(dir, "config"), deep, filepath.Join(dir, "pods"), dir} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	since := time.Now().Add(-time.Minute)
	if p, looked, err := ChangedSince([]string{dir}, since); err != nil || p != "" || looked != 5 {
		t.Fatalf("nothing changed: got %q after %d entries, %v; want none after the 5 entries (the link not followed)", p, looked, err)
	}
	if err := os.WriteFile(state, []byte(`{"phase":"Running"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, _, err := ChangedSince([]string{dir}, since); err != nil || p != state {
		t.Fatalf("after a write of %s: got %q, %v", state, p, err)
	}
	if _, _, err := ChangedSince([]string{filepath.Join(dir, "missing")}, since); err == nil {
		t.Error("a missing state directory is not an error")
	}
}
