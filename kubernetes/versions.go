package kubernetes

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor version whose API podspec knows: which group/versions serve
// each kind and which fields each API type has (zz_generated_versions.go, generated from the
// OpenAPI documents Kubernetes publishes). The zero Version is the newest, the one the API types
// of this package describe.
type Version struct{ minor uint8 }

// Newest is the newest Kubernetes version podspec knows, the default.
func Newest() Version { return Version{newestMinor} }

// Versions are the Kubernetes versions podspec knows, oldest first ("1.29", ..., "1.37").
func Versions() []string {
	var out []string
	for m := oldestMinor; m <= newestMinor; m++ {
		out = append(out, fmt.Sprintf("1.%d", m))
	}
	return out
}

// ParseVersion reads a Kubernetes version as kubectl version prints it or as people write it:
// 1.29, v1.29, 1.29.6 or v1.29.6 (a patch release has its minor's API).
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".")
	known := strings.Join(Versions(), ", ")
	malformed := len(parts) < 2 || len(parts) > 3 || parts[0] != "1"
	for i := 1; i < len(parts) && !malformed; i++ {
		_, err := strconv.ParseUint(parts[i], 10, 16)
		malformed = err != nil
	}
	if malformed {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (1.N or 1.N.P); podspec knows %s", s, known)
	}
	minor, _ := strconv.Atoi(parts[1])
	if minor < oldestMinor || minor > newestMinor {
		return Version{}, fmt.Errorf("podspec knows the API of Kubernetes %s, not of %s", known, s)
	}
	return Version{uint8(minor)}, nil
}

// String is the version as 1.N.
func (v Version) String() string { return fmt.Sprintf("1.%d", v.orNewest().minor) }

func (v Version) orNewest() Version {
	if v.minor == 0 {
		return Newest()
	}
	return v
}

// minors are the Kubernetes minor versions 1.first to 1.last, inclusive.
type minors struct{ first, last uint8 }

func (m minors) has(v Version) bool {
	n := v.orNewest().minor
	return m.first <= n && n <= m.last
}

// String says which versions the minors are, as the end of a sentence about a field that the
// versions have.
func (m minors) String() string {
	switch {
	case m.first == m.last:
		return fmt.Sprintf("only Kubernetes 1.%d has it", m.first)
	case m.last == newestMinor:
		return fmt.Sprintf("Kubernetes 1.%d added it", m.first)
	case m.first == oldestMinor:
		return fmt.Sprintf("Kubernetes 1.%d removed it (1.%d was the last to have it)", m.last+1, m.last)
	}
	return fmt.Sprintf("only Kubernetes 1.%d to 1.%d have it", m.first, m.last)
}

// servedVersion says that a kind is served at a group/version in some minors.
type servedVersion struct {
	kind, groupVersion string
	minors             minors
}

// fieldVersion says which minors have a field of an API type.
type fieldVersion struct {
	typ, field string
	minors     minors
}

// typeMinors are the minors that have each field of the API type typ, by field; empty for a
// type the OpenAPI documents do not describe (a List's metadata).
func typeMinors(typ string) map[string]minors {
	i, _ := slices.BinarySearchFunc(fieldVersions[:], typ, func(f fieldVersion, typ string) int {
		return strings.Compare(f.typ, typ)
	})
	out := map[string]minors{}
	for ; i < len(fieldVersions) && fieldVersions[i].typ == typ; i++ {
		out[fieldVersions[i].field] = fieldVersions[i].minors
	}
	return out
}

// servedAt are the group/versions (apps/v1, or v1 for the core group) Kubernetes version v
// serves kind at.
func servedAt(kind string, v Version) []string {
	var out []string
	for _, s := range servedVersions {
		if s.kind == kind && s.minors.has(v) {
			out = append(out, s.groupVersion)
		}
	}
	return out
}
