package validation

import (
	"errors"
	"fmt"
	"strings"

	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// The transports of the references ParseImage accepts.
const (
	// TransportOCI is the containers-image transport of an OCI image layout directory.
	TransportOCI = "oci"
	// TransportRegistry is a registry reference (containers-image's "docker" transport).
	TransportRegistry = "docker"
)

// ImageReference is a parsed `image:` value.
type ImageReference struct {
	// Transport is TransportOCI or TransportRegistry.
	Transport string
	// Name is a registry reference, fully qualified (docker.io/library/nginx:latest); empty
	// for an OCI layout.
	Name string
	// Path is the OCI layout directory; a relative path resolves against the manifest's directory.
	Path string
	// Tag names the image in the layout's index (org.opencontainers.image.ref.name); may be empty.
	Tag string
	// Digest is "sha256:<hex>" of the image manifest; may be empty. At most one of Tag and
	// Digest is set.
	Digest string
}

// ParseImage parses an `image:` value: `oci:PATH[:TAG|@DIGEST]` (an OCI image layout) or a
// registry reference `[host[:port]/]path[:tag][@digest]` (package imageref). Other
// containers-image transports are rejected with an error that says so.
func ParseImage(ref string) (ImageReference, error) {
	if ref == "" {
		return ImageReference{}, errors.New("image reference is empty")
	}
	if !imageref.IsLayout(ref) {
		r, err := imageref.Parse(ref)
		if err != nil {
			return ImageReference{}, err
		}
		return ImageReference{Transport: TransportRegistry, Name: r.String()}, nil
	}
	rest := strings.TrimPrefix(ref, imageref.LayoutPrefix)
	r := ImageReference{Transport: TransportOCI, Path: rest}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		r.Path, r.Digest = rest[:i], rest[i+1:]
		if err := imageref.CheckDigest(r.Digest); err != nil {
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

// validateImage checks an image reference (IMG-001).
func validateImage(image string, p *field.Path) field.ErrorList {
	if image == "" {
		return field.ErrorList{field.Required(spec.MAN003, p, "every container needs an image: a registry reference or oci:PATH[:TAG|@DIGEST]")}
	}
	if _, err := ParseImage(image); err != nil {
		return field.ErrorList{field.Invalid(spec.IMG001, p, image, err.Error())}
	}
	return nil
}
