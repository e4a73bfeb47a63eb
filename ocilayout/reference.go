package ocilayout

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Transport is the only reference transport supported.
const Transport = "oci:"

// DefaultTag is the tag Build gives an image when none is requested. Resolving a reference
// without a tag does not look for it: it needs a layout holding exactly one image.
const DefaultTag = "latest"

// The patterns leave lengths to a check of their own: the regexp package compiles a bounded
// repetition such as {0,127} into one instruction per repetition, which cost every process
// that links this package 3 ms at start.
var (
	tagRE    = sizedRE{regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`), 1, 128}
	digestRE = sizedRE{regexp.MustCompile(`^sha256:[a-f0-9]*$`), 71, 71}
)

// ValidDigest reports whether s is a digest this package handles: "sha256:" and 64 lowercase
// hex digits.
func ValidDigest(s string) bool { return digestRE.MatchString(s) }

// sizedRE is a pattern that matches only strings of min to max bytes.
type sizedRE struct {
	re       *regexp.Regexp
	min, max int
}

// MatchString reports whether s has an allowed length and matches the pattern.
func (r sizedRE) MatchString(s string) bool {
	return len(s) >= r.min && len(s) <= r.max && r.re.MatchString(s)
}

// Reference is a parsed `oci:PATH[:TAG|@DIGEST]` image reference.
type Reference struct {
	// Path is the layout directory, absolute and clean.
	Path string
	// Tag is the requested tag (the org.opencontainers.image.ref.name annotation), empty when
	// Digest is set or no tag was given.
	Tag string
	// Digest is the requested manifest digest ("sha256:<hex>"), empty when none was given.
	Digest string
}

// String renders the reference with its absolute path.
func (r Reference) String() string {
	switch {
	case r.Digest != "":
		return Transport + r.Path + "@" + r.Digest
	case r.Tag != "":
		return Transport + r.Path + ":" + r.Tag
	}
	return Transport + r.Path
}

// ParseReference parses `oci:PATH[:TAG|@DIGEST]`. A relative PATH is resolved against
// baseDir (the directory of the manifest that names the image). The text after the last ':'
// of PATH is a tag when it is a valid tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127}, so it holds no
// '/'); to use a layout directory whose name contains ':', end the path with '/' or give a tag.
// Other transports (docker://, registry names) are rejected as unsupported.
func ParseReference(ref, baseDir string) (Reference, error) {
	rest, ok := strings.CutPrefix(ref, Transport)
	if !ok {
		if i := strings.Index(ref, ":"); i > 0 && !strings.Contains(ref[:i], "/") {
			return Reference{}, fmt.Errorf("%w %q: transport %q is not supported (only oci:PATH[:TAG|@DIGEST])", ErrInvalidReference, ref, ref[:i])
		}
		return Reference{}, fmt.Errorf("%w %q: want oci:PATH[:TAG|@DIGEST] (registry images are not supported)", ErrInvalidReference, ref)
	}
	var r Reference
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		r.Digest = rest[i+1:]
		rest = rest[:i]
		if !digestRE.MatchString(r.Digest) {
			return Reference{}, fmt.Errorf("%w %q: digest %q is not sha256:<64 lowercase hex>", ErrInvalidReference, ref, r.Digest)
		}
	} else if i := strings.LastIndex(rest, ":"); i >= 0 && tagRE.MatchString(rest[i+1:]) {
		r.Tag = rest[i+1:]
		rest = rest[:i]
	} else if i >= 0 && !strings.Contains(rest[i+1:], "/") && rest[i+1:] != "" {
		return Reference{}, fmt.Errorf("%w %q: tag %q is not valid ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})", ErrInvalidReference, ref, rest[i+1:])
	}
	if rest == "" {
		return Reference{}, fmt.Errorf("%w %q: empty layout path", ErrInvalidReference, ref)
	}
	if strings.ContainsRune(rest, 0) {
		return Reference{}, fmt.Errorf("%w %q: NUL in path", ErrInvalidReference, ref)
	}
	p := rest
	if !filepath.IsAbs(p) {
		if baseDir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return Reference{}, fmt.Errorf("resolve %q: %w", ref, err)
			}
			baseDir = wd
		}
		p = filepath.Join(baseDir, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Reference{}, fmt.Errorf("resolve %q: %w", ref, err)
	}
	r.Path = abs
	return r, nil
}
