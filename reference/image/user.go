package image

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// User is a resolved process identity.
type User struct {
	UID, GID       uint32
	AdditionalGids []uint32
}

// LookupUser resolves a user specification as images and manifests write it ("", "UID",
// "UID:GID", "NAME", "NAME:GROUP", "UID:GROUP", "NAME:GID") against the /etc/passwd and
// /etc/group of the root filesystem rootfs. The files are opened with every path component
// resolved inside rootfs, so a symlinked /etc/passwd cannot make the host's files be read.
//
// Rules (as Docker and runc's libcontainer/user apply them):
//   - "" means root (0:0);
//   - a numeric UID need not exist in /etc/passwd; its primary GID is then 0 unless given;
//   - a NAME must exist in /etc/passwd, a GROUP name in /etc/group;
//   - when no group is given, the user's supplementary groups are the /etc/group entries
//     that list the user's name; an explicit group means no supplementary groups.
func LookupUser(rootfs, spec string) (User, error) {
	if spec == "" {
		return User{}, nil
	}
	userPart, groupPart, hasGroup := strings.Cut(spec, ":")
	if userPart == "" || (hasGroup && groupPart == "") {
		return User{}, fmt.Errorf("user %q: want USER[:GROUP]", spec)
	}
	passwd, err := readInRoot(rootfs, "etc/passwd")
	if err != nil {
		return User{}, fmt.Errorf("user %q: %w", spec, err)
	}
	u, name, err := lookupPasswd(passwd, spec, userPart)
	if err != nil {
		return User{}, err
	}
	group, err := readInRoot(rootfs, "etc/group")
	if err != nil {
		return User{}, fmt.Errorf("user %q: %w", spec, err)
	}
	if hasGroup {
		gid, err := lookupGroup(group, spec, groupPart)
		if err != nil {
			return User{}, err
		}
		u.GID = gid
		return u, nil
	}
	u.AdditionalGids = supplementaryGroups(group, name, u.GID)
	return u, nil
}

// lookupPasswd resolves the user part of spec against the /etc/passwd entries: a numeric
// UID need not be listed (its GID is then 0, and its name ""), a name must be. It returns the
// user's UID and primary GID, and the user's name for the supplementary groups.
func lookupPasswd(passwd [][]string, spec, userPart string) (User, string, error) {
	if n, err := parseID(userPart); err == nil {
		u := User{UID: n}
		for _, f := range passwd {
			if len(f) >= 4 && f[2] == userPart {
				if g, err := parseID(f[3]); err == nil {
					u.GID = g
				}
				return u, f[0], nil
			}
		}
		return u, "", nil
	}
	for _, f := range passwd {
		if len(f) >= 4 && f[0] == userPart {
			uid, err1 := parseID(f[2])
			gid, err2 := parseID(f[3])
			if err1 != nil || err2 != nil {
				return User{}, "", fmt.Errorf("user %q: bad /etc/passwd entry for %s", spec, userPart)
			}
			return User{UID: uid, GID: gid}, userPart, nil
		}
	}
	return User{}, "", fmt.Errorf("user %q: no user %s in the image's /etc/passwd", spec, userPart)
}

// lookupGroup resolves the group part of spec: a numeric GID as given, a name against the
// /etc/group entries, where it must be listed.
func lookupGroup(group [][]string, spec, groupPart string) (uint32, error) {
	if g, err := parseID(groupPart); err == nil {
		return g, nil
	}
	for _, f := range group {
		if len(f) >= 3 && f[0] == groupPart {
			g, err := parseID(f[2])
			if err != nil {
				return 0, fmt.Errorf("user %q: bad /etc/group entry for %s", spec, groupPart)
			}
			return g, nil
		}
	}
	return 0, fmt.Errorf("user %q: no group %s in the image's /etc/group", spec, groupPart)
}

// supplementaryGroups returns the GIDs of the /etc/group entries that list the user name
// as a member, leaving out the primary GID; a user without a name has none.
func supplementaryGroups(group [][]string, name string, primary uint32) []uint32 {
	if name == "" {
		return nil
	}
	var gids []uint32
	for _, f := range group {
		if len(f) < 4 {
			continue
		}
		for _, member := range strings.Split(f[3], ",") {
			if member == name {
				if g, err := parseID(f[2]); err == nil && g != primary {
					gids = append(gids, g)
				}
				break
			}
		}
	}
	return gids
}

func parseID(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err
}

// readInRoot reads a colon-separated database file (passwd, group) inside root; a missing
// file reads as empty.
func readInRoot(root, rel string) ([][]string, error) {
	rfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open root %s: %w", root, err)
	}
	defer unix.Close(rfd)
	fd, err := unix.Openat2(rfd, rel, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open /%s in the image: %w", rel, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("/%s in the image is not a regular file", rel)
	}
	var out [][]string
	sc := bufio.NewScanner(io.LimitReader(f, 4<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, ":"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read /%s in the image: %w", rel, err)
	}
	return out, nil
}
