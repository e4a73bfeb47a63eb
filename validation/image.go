package validation

import (
	"errors"
	"fmt"
	"strings"

	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// TransportOCI is the containers-image transport of an OCI image layout directory.
const TransportOCI = "oci"

// ImageReference is a parsed `image:` value: `oci:PATH[:TAG|@DIGEST]`.
type ImageReference struct {
	// Transport is always TransportOCI for a reference ParseImage accepts.
	Transport string
	// Path is the OCI layout directory; a relative path resolves against the manifest's directory.
	Path string
	// Tag names the image in the layout's index (org.opencontainers.image.ref.name); may be empty.
	Tag string
	// Digest is "sha256:<hex>" of the image manifest; may be empty. At most one of Tag and
	// Digest is set.
	Digest string
}

// isOtherTransport reports containers-image transports podspec recognises but does not support
// (yet).
func isOtherTransport(t string) bool {
	switch t {
	case "docker", "docker-archive", "docker-daemon", "oci-archive", "containers-storage", "dir", "sif", "tarball":
		return true
	}
	return false
}

// ParseImage parses an image reference in the containers-image transport syntax. Only the
// `oci:` transport is supported; other transports and bare registry references are rejected
// with an error that says so.
func ParseImage(ref string) (ImageReference, error) {
	if ref == "" {
		return ImageReference{}, errors.New("image reference is empty")
	}
	transport, rest, ok := strings.Cut(ref, ":")
	if !ok || transport != TransportOCI {
		if ok && isOtherTransport(transport) {
			return ImageReference{}, fmt.Errorf("transport %q is not supported; use oci:PATH[:TAG|@DIGEST] (an OCI image layout directory)", transport)
		}
		return ImageReference{}, errors.New("registry references are not supported; use oci:PATH[:TAG|@DIGEST] (an OCI image layout directory)")
	}
	r := ImageReference{Transport: TransportOCI, Path: rest}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		r.Path, r.Digest = rest[:i], rest[i+1:]
		if err := checkDigest(r.Digest); err != nil {
			return ImageReference{}, err
		}
	} else if i := strings.LastIndexByte(rest, ':'); i >= 0 && rest[i+1:] != "" && !strings.Contains(rest[i+1:], "/") {
		// Text after the last ':' is a tag unless it is empty or holds a '/' (then the ':'
		// belongs to the layout path), as reference/image reads it.
		r.Path, r.Tag = rest[:i], rest[i+1:]
		if err := checkTag(r.Tag); err != nil {
			return ImageReference{}, err
		}
	}
	if r.Path == "" {
		return ImageReference{}, errors.New("the OCI layout path after \"oci:\" is empty")
	}
	if strings.IndexByte(r.Path, 0) >= 0 {
		return ImageReference{}, errors.New("the OCI layout path contains a NUL byte")
	}
	return r, nil
}

// checkTag accepts [A-Za-z0-9_][A-Za-z0-9._-]{0,127}, the OCI distribution tag syntax.
func checkTag(tag string) error {
	const bad = "tag %q must be 1 to 128 letters, digits, '_', '.' or '-', not starting with '.' or '-'"
	if tag == "" || len(tag) > 128 || tag[0] == '.' || tag[0] == '-' {
		return fmt.Errorf(bad, tag)
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return fmt.Errorf(bad, tag)
		}
	}
	return nil
}

// checkDigest accepts sha256:<64 lower-case hex digits>, the only digest algorithm the
// reference runtime resolves.
func checkDigest(d string) error {
	alg, enc, ok := strings.Cut(d, ":")
	if !ok || alg == "" || enc == "" {
		return fmt.Errorf("digest %q must be sha256:<64 lower-case hex digits>", d)
	}
	if alg != "sha256" {
		return fmt.Errorf("digest algorithm %q is not supported; use sha256", alg)
	}
	for i := 0; i < len(enc); i++ {
		if c := enc[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("digest %q: sha256 needs lower-case hex digits", d)
		}
	}
	if len(enc) != 64 {
		return fmt.Errorf("digest %q: sha256 needs 64 hex digits, got %d", d, len(enc))
	}
	return nil
}

// validateImage checks an image reference (IMG-001).
func validateImage(image string, p *field.Path) field.ErrorList {
	if image == "" {
		return field.ErrorList{field.Required(spec.MAN003, p, "every container needs an image (oci:PATH[:TAG|@DIGEST])")}
	}
	if _, err := ParseImage(image); err != nil {
		return field.ErrorList{field.Invalid(spec.IMG001, p, image, err.Error())}
	}
	return nil
}
