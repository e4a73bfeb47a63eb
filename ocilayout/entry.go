package ocilayout

import (
	"fmt"
	"path"
	"strings"
)

// EntryPath turns a layer's tar entry name (or a hardlink target) into a clean path relative to the root. Leading '/' is
// dropped (absolute names are taken relative to the root); a name that climbs out of the root
// with ".." is rejected.
func EntryPath(name string) (string, error) {
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("entry name %q contains NUL", name)
	}
	rel := path.Clean("/" + strings.TrimLeft(name, "/"))
	// path.Clean of a rooted path cannot climb above "/", so check the raw name too.
	depth := 0
	for _, part := range strings.Split(name, "/") {
		switch part {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("entry %q climbs out of the root filesystem", name)
			}
		default:
			depth++
		}
	}
	return strings.TrimPrefix(rel, "/"), nil
}
