package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the uid the tests give what "another user" owns.
const nobody = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (gives files to another user)")
	}
}

// refused fails the test unless err is a refusal that names every one of want.
func refused(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want a refusal", what)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v; want it to name %q", what, err, w)
		}
	}
}

// TestSUP011_ARootOwnedByAnotherUserIsRefused: a root another user owns (who could rename its
// pods directory away or put links in it) is refused before anything is written in it.
func TestSUP011_ARootOwnedByAnotherUserIsRefused(t *testing.T) {
	needRoot(t)
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(root, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err := Open(root)
	refused(t, "a root owned by uid 65534", err, root, "uid 65534", "chown")
	if _, err := os.Stat(filepath.Join(root, "pods")); err == nil {
		t.Error("the refused root got a pods directory")
	}
	// Below a directory another user may write (no sticky bit) the root could be swapped.
	parent := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(parent, 0o777)
	_, err = Open(filepath.Join(parent, "root"))
	refused(t, "a root below a world-writable directory", err, parent, "sticky")
	os.Chmod(parent, os.ModeSticky|0o777) // /tmp's mode: nobody else can rename what is in it
	if _, err := Open(filepath.Join(parent, "root")); err != nil {
		t.Errorf("a root below a sticky world-writable directory: %v", err)
	}
}

// TestSUP011_APodsDirectoryReplacedIsRefused: ROOT/pods renamed away and replaced, by another
// user's directory or by a symbolic link, is refused by the next Open (every verb opens the
// store), so no pod is looked up, listed or created in it.
func TestSUP011_APodsDirectoryReplacedIsRefused(t *testing.T) {
	needRoot(t)
	s, _ := newPod(t)
	pods := filepath.Join(s.Root, "pods")
	if err := os.Rename(pods, pods+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(pods, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(pods, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_, err := Open(s.Root)
	refused(t, "pods owned by another user", err, pods, "uid 65534")
	os.Remove(pods)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, pods); err != nil {
		t.Fatal(err)
	}
	_, err = Open(s.Root)
	refused(t, "pods a symbolic link", err, pods, "symbolic link", elsewhere)
}

// TestSUP011_ALinkAtAPodsNameIsRefused: a symbolic link planted at ROOT/pods/NAME is neither
// followed by the next run of NAME (which would write its state where the link points) nor by a
// lookup of NAME; the link's target is left untouched.
func TestSUP011_ALinkAtAPodsNameIsRefused(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	target := t.TempDir()
	link := filepath.Join(s.Root, "pods", "web")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err = s.CreatePod(testPodObject(), nil, nil)
	refused(t, "creating a pod whose name is a link", err, link, "symbolic link", target)
	_, err = s.Pod("web")
	refused(t, "looking up a pod whose name is a link", err, link, "symbolic link")
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("the link's target got %d entries", len(ents))
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if names, err := s.List(); err != nil || len(names) != 0 {
		t.Errorf("List = %v, %v; want nothing", names, err)
	}
}

// TestSUP012_GroupOrOtherWritableDirectoriesAreRepaired: the root, its pods directory and a
// pod's directory, owned by the runtime's user but writable by group or others, lose that
// permission when next used.
func TestSUP012_GroupOrOtherWritableDirectoriesAreRepaired(t *testing.T) {
	s, p := newPod(t)
	pods := filepath.Join(s.Root, "pods")
	for _, d := range []string{s.Root, pods, p.Dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := Open(s.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Pod(p.Name); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{s.Root, pods, p.Dir} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s is still %v: writable by group or others", d, fi.Mode().Perm())
		}
	}
}

// TestSUP011_ARootReachedThroughItsOwnersLinkIsUsed: a root given as a symbolic link that root
// or the runtime's user made is used.
func TestSUP011_ARootReachedThroughItsOwnersLinkIsUsed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(dir, "link"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePod(testPodObject(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real", "pods", "web", StateFile)); err != nil {
		t.Errorf("the pod is not in the linked directory: %v", err)
	}
}
