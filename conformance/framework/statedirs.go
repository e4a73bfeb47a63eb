package framework

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// StateExposure is one path in or below a runtime's state directory that a user other than the
// runtime's owner can read.
type StateExposure struct {
	Path string
	Mode fs.FileMode
	UID  uint32
	GID  uint32
	// Via says how other users read it: "group", "other" or "owner uid N" (a path owned by a
	// user who is not the runtime's owner).
	Via string
}

func (e StateExposure) String() string {
	return fmt.Sprintf("%s (%v, uid %d gid %d): readable by %s", e.Path, e.Mode, e.UID, e.GID, e.Via)
}

// maxExposures bounds what ExposedState collects: a world-readable image cache would otherwise
// list every file of every image.
const maxExposures = 50

// ExposedState checks SEC-007 ("A runtime MUST NOT let users other than its own owner read its
// state directories") on the directories a runtime names in `version` (contract 1.2,
// stateDirectories), for the runtime's owner uid owner (the harness runs the runtime's command
// itself, so its own effective uid). It returns the state directories that are missing or not
// directories (problems), and the paths another user can read (at most maxExposures of them;
// more is true when the walk stopped there).
//
// What it checks is reachability, not the mode of every file, as SEC-007 means it: a user reads
// a path only if it can search every directory from the state directory down to it and the path
// itself grants it read (a file's data, a directory's listing). So a private top directory (0700,
// owned by the runtime's owner) makes everything below it unreadable whatever its modes (an
// unpacked image's 0755 directories, a container's root filesystem), while a directory that only
// grants search (0711) lets others through to every entry whose name they know or guess: the
// walk goes through it and judges its entries (pod names are listed by `list`, a runtime's file
// names are fixed), without flagging it. The directories above a state directory are assumed
// searchable (the runtime must not rely on how the user made its parents). A path's permission
// counts for "other users" when it grants them read or search in any of three ways: the other
// class, the group class (the group's members need not be the owner), or the owner class of a
// path owned by a uid that is not the runtime's owner. ACLs are not read: a runtime's state with
// ACL entries is judged by its mode bits alone (the group class is then the ACL mask, so an ACL
// granting another user read shows as group read).
//
// Symbolic links are not followed below the top (a link's mode means nothing, and its target is
// judged where it lies, if in a state directory); the top itself is resolved, so a state
// directory may be a link to where the state is.
func ExposedState(dirs []string, owner uint32) (problems []string, exposed []StateExposure, more bool, err error) {
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			problems = append(problems, fmt.Sprintf("state directory %q is not an absolute path", d))
			continue
		}
		top, err := filepath.EvalSymlinks(d)
		if err != nil {
			problems = append(problems, fmt.Sprintf("state directory %s: %v", d, err))
			continue
		}
		fi, err := os.Lstat(top)
		if err != nil {
			problems = append(problems, fmt.Sprintf("state directory %s: %v", d, err))
			continue
		}
		if !fi.IsDir() {
			problems = append(problems, fmt.Sprintf("state directory %s is not a directory (%v)", d, fi.Mode()))
			continue
		}
		queue := []string{}
		visit := func(path string, fi fs.FileInfo) {
			if e, ok := othersMay(path, fi, owner, 0o4); ok {
				if len(exposed) >= maxExposures {
					more = true
				} else {
					exposed = append(exposed, e)
				}
			}
			if _, ok := othersMay(path, fi, owner, 0o1); ok && fi.IsDir() {
				queue = append(queue, path)
			}
		}
		visit(top, fi)
		for len(queue) > 0 && !more {
			dir := queue[0]
			queue = queue[1:]
			entries, err := os.ReadDir(dir)
			if err != nil {
				return problems, exposed, more, fmt.Errorf("read %s: %w", dir, err)
			}
			for _, ent := range entries {
				path := filepath.Join(dir, ent.Name())
				fi, err := os.Lstat(path)
				if err != nil {
					continue // gone meanwhile: the runtime is running
				}
				if fi.Mode()&fs.ModeSymlink != 0 {
					continue
				}
				visit(path, fi)
			}
		}
	}
	sort.Slice(exposed, func(i, j int) bool { return exposed[i].Path < exposed[j].Path })
	return problems, exposed, more, nil
}

// othersMay reports whether a user other than owner gets permission bit (0o4 read, 0o1 search)
// on the path, and through which class.
func othersMay(path string, fi fs.FileInfo, owner uint32, bit fs.FileMode) (StateExposure, bool) {
	e := StateExposure{Path: path, Mode: fi.Mode()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.UID, e.GID = st.Uid, st.Gid
	}
	perm := fi.Mode().Perm()
	switch {
	case perm&bit != 0:
		e.Via = "other"
	case perm&(bit<<3) != 0:
		e.Via = fmt.Sprintf("group (gid %d)", e.GID)
	case perm&(bit<<6) != 0 && e.UID != owner:
		e.Via = fmt.Sprintf("its owner uid %d, who is not the runtime's owner (uid %d)", e.UID, owner)
	default:
		return e, false
	}
	return e, true
}

// maxChangeWalk bounds how many entries ChangedSince looks at: a state directory holding image
// caches and root filesystems can hold hundreds of thousands of them.
const maxChangeWalk = 200000

// ChangedSince looks, breadth first, for an entry (file or directory, without following symbolic
// links below the top) in or below the directories dirs whose modification time is at or after
// since, and returns the first it finds. A runtime that keeps a running pod's state there has
// written something since the pod was created; one that names directories holding none of its
// state (a configuration directory, an empty one) has not. looked is the number of entries
// seen; the walk stops after maxChangeWalk of them.
func ChangedSince(dirs []string, since time.Time) (path string, looked int, err error) {
	var queue []string
	for _, d := range dirs {
		top, err := filepath.EvalSymlinks(d)
		if err != nil {
			return "", looked, fmt.Errorf("state directory %s: %w", d, err)
		}
		queue = append(queue, top)
	}
	for len(queue) > 0 && looked < maxChangeWalk {
		p := queue[0]
		queue = queue[1:]
		fi, err := os.Lstat(p)
		if err != nil {
			continue // gone meanwhile: the runtime is running
		}
		looked++
		if !fi.ModTime().Before(since) {
			return p, looked, nil
		}
		if !fi.IsDir() {
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return "", looked, fmt.Errorf("read %s: %w", p, err)
		}
		for _, ent := range entries {
			if ent.Type()&fs.ModeSymlink == 0 {
				queue = append(queue, filepath.Join(p, ent.Name()))
			}
		}
	}
	return "", looked, nil
}
