// Package stateroot is what a runtime requires of its state root and the directories of its state
// (SUP-011, SUP-012), as OpenSSH's StrictModes does of a user's files; the reference runtime's
// store and the podman adapter both open their roots with it.
package stateroot

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrUntrusted is returned (wrapped) for a state root, or a directory of the state below it, that
// another user could change (SUP-011): the runtime refuses to work in it.
var ErrUntrusted = errors.New("not safe to use")

// What the runtime requires of its state (SUP-011, SUP-012), as OpenSSH's StrictModes does of a
// user's files: every directory from / down to a pod's directory is owned by root or by the
// runtime's user, and writable by no other user (a world-writable directory with the sticky
// bit, /tmp, is allowed above the root: nobody else can rename or remove what the runtime made
// in it). Then no other user can rename a directory of the state away, replace it, or plant a
// symbolic link in it, so the paths the runtime opens below the root reach what it made. The
// root and its pods directory are checked each time the store is opened (every verb, every
// supervisor), a pod's directory each time it is looked up or created. A directory of the state
// that the runtime's user owns but that group or others may write is repaired (SUP-012): only
// that user, or root, could have made it so.

// Open prepares the state root abs (an absolute path) for a verb: it refuses a root another user
// owns or could replace before anything is made there (checkRoot), creates the root and each of
// create (paths relative to it) with mode, checks the root and each of create and existing that
// exists (CheckOwnDir: no symbolic link, nobody else's, group and other write removed), and
// gives the root mode (SEC-007 asks 0700: no other user reaches anything of the state).
func Open(abs string, mode os.FileMode, create, existing []string) error {
	if err := checkRoot(abs); err != nil { // SUP-011, before anything is made there
		return err
	}
	if err := os.MkdirAll(abs, mode); err != nil {
		return fmt.Errorf("create state root %s: %w", abs, err)
	}
	for _, d := range create {
		if err := os.MkdirAll(filepath.Join(abs, d), mode); err != nil {
			return fmt.Errorf("create state root %s: %w", abs, err)
		}
	}
	real, err := filepath.EvalSymlinks(abs) // checkRoot allowed a link made by root or this user
	if err != nil {
		return fmt.Errorf("state root %s: %w", abs, err)
	}
	for _, d := range append(append([]string{""}, create...), existing...) {
		if _, err := CheckOwnDir(abs, filepath.Join(real, d)); err != nil {
			return err
		}
	}
	if err := os.Chmod(abs, mode); err != nil {
		return fmt.Errorf("state root %s: %w", abs, err)
	}
	return nil
}

// checkRoot checks the state root abs (absolute) and the directories above it, before anything
// is created there: the existing part of the path as given (a symbolic link on the way counts
// only if root or the runtime's user owns it) and as resolved.
func checkRoot(abs string) error {
	if err := checkAncestors(abs, abs); err != nil {
		return err
	}
	existing, rest := abs, ""
	for {
		if _, err := os.Lstat(existing); err == nil || existing == "/" {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = filepath.Dir(existing)
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return fmt.Errorf("state root %s: %w", abs, err)
	}
	if real != existing {
		if err := checkAncestors(abs, filepath.Join(real, rest)); err != nil {
			return err
		}
	}
	if rest != "" {
		return nil // the root does not exist yet: the runtime makes it
	}
	// The root itself: a symbolic link to it counts only if root or the runtime's user made it.
	var st unix.Stat_t
	if err := unix.Lstat(abs, &st); err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK && int(st.Uid) != 0 && int(st.Uid) != os.Geteuid() {
		return untrusted(abs, abs, st, "a symbolic link owned by "+owner(st.Uid), "use the directory it points to, if it is yours, or another --root")
	}
	_, err = CheckOwnDir(abs, real)
	return err
}

// checkAncestors checks every existing directory above p and refuses a symbolic link on the
// way that another user owns; root is the state root the error names.
func checkAncestors(root, p string) error {
	me := os.Geteuid()
	cur := "/"
	for _, c := range strings.Split(strings.TrimPrefix(filepath.Dir(p), "/"), "/") {
		if c == "" {
			continue
		}
		cur = filepath.Join(cur, c)
		var st unix.Stat_t
		if err := unix.Lstat(cur, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // the rest is created by the runtime
			}
			return fmt.Errorf("state root %s: %s: %w", root, cur, err)
		}
		if int(st.Uid) != 0 && int(st.Uid) != me {
			return untrusted(root, cur, st, "above the state root, owned by "+owner(st.Uid)+", who could rename the root away and put another in its place",
				"use a --root whose every parent directory is owned by root or by uid "+strconv.Itoa(me))
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
			return untrusted(root, cur, st, "above the state root, writable by other users without the sticky bit: they could rename the root away and put another in its place",
				"remove the group and other write permission (chmod go-w "+cur+"), set the sticky bit, or use another --root")
		}
	}
	return nil
}

// CheckOwnDir checks a directory of the state (the root, ROOT/pods, a pod's directory): a
// directory, not a symbolic link, owned by the runtime's user; group or other write permission
// on it is removed (SUP-012). missing reports whether it does not exist (not an error).
func CheckOwnDir(root, dir string) (missing bool, err error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return true, nil
		}
		return false, fmt.Errorf("state root %s: %s: %w", root, dir, err)
	}
	me := os.Geteuid()
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		target, _ := os.Readlink(dir)
		return false, untrusted(root, dir, st, "a symbolic link (to "+target+"), owned by "+owner(st.Uid)+", where the runtime keeps a directory of its own",
			"remove the link (and find out who made it); the runtime never makes one there")
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return false, untrusted(root, dir, st, "not a directory", "move it away")
	case int(st.Uid) != me:
		return false, untrusted(root, dir, st, "owned by "+owner(st.Uid)+", not by this runtime's uid "+strconv.Itoa(me)+": that user could rename what is in it away or plant links in it",
			"use a state root owned by uid "+strconv.Itoa(me)+" (chown -R "+strconv.Itoa(me)+" "+dir+" if it is yours, or another --root)")
	case st.Mode&0o022 != 0:
		if err := os.Chmod(dir, os.FileMode(st.Mode&0o777&^0o022)); err != nil {
			return false, fmt.Errorf("state root %s: %s is writable by group or others and could not be made private: %w", root, dir, err)
		}
	}
	return false, nil
}

func untrusted(root, path string, st unix.Stat_t, what, fix string) error {
	return fmt.Errorf("state root %s: %s (mode %04o, owner %s) is %s; %w: %s", root, path, st.Mode&0o7777, owner(st.Uid), what, ErrUntrusted, fix)
}

// owner names a uid: "uid N (name)", or "uid N" when it has no name.
func owner(uid uint32) string {
	s := "uid " + strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		s += " (" + u.Username + ")"
	}
	return s
}
