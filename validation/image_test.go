package validation

import (
	"strings"
	"testing"
)

func TestParseImage(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cases := []struct {
		name, ref string
		want      ImageReference
		err       string // substring of the error; "" means valid
	}{
		{"a relative layout path without tag is valid", "oci:images/web", ImageReference{Transport: "oci", Path: "images/web"}, ""},
		{"a tag follows the last colon", "oci:images/web:1.2_rc-1", ImageReference{Transport: "oci", Path: "images/web", Tag: "1.2_rc-1"}, ""},
		{"a digest follows the last at sign", "oci:/srv/img@sha256:" + hex, ImageReference{Transport: "oci", Path: "/srv/img", Digest: "sha256:" + hex}, ""},
		{"a colon followed by a slash belongs to the path", "oci:/srv/a:b/c", ImageReference{Transport: "oci", Path: "/srv/a:b/c"}, ""},
		{"a trailing colon belongs to the path", "oci:dir:", ImageReference{Transport: "oci", Path: "dir:"}, ""},
		{"an empty reference is rejected", "", ImageReference{}, "empty"},
		{"a registry reference is fully qualified", "busybox:1.36", ImageReference{Transport: "docker", Name: "docker.io/library/busybox:1.36"}, ""},
		{"a registry reference with a port and a digest", "localhost:5000/a/b@sha256:" + hex, ImageReference{Transport: "docker", Name: "localhost:5000/a/b@sha256:" + hex}, ""},
		{"the docker transport prefix is refused with a hint", "docker://busybox", ImageReference{}, `drop the "docker://"`},
		{"the dir transport is refused by name", "dir:/srv/img", ImageReference{}, `transport "dir" is not supported`},
		{"an upper-case repository is rejected", "Nginx", ImageReference{}, "lower-case letters"},
		{"an empty layout path is rejected", "oci::v1", ImageReference{}, "path"},
		{"a tag starting with a dot is rejected", "oci:images/web:.x", ImageReference{}, "tag"},
		{"a tag with a plus is rejected", "oci:images/web:1+2", ImageReference{}, "tag"},
		{"a short digest is rejected", "oci:images/web@sha256:abc", ImageReference{}, "64 hex digits"},
		{"an upper-case digest is rejected", "oci:images/web@sha256:" + strings.ToUpper(hex), ImageReference{}, "lower-case"},
		{"a sha512 digest is not supported", "oci:images/web@sha512:" + hex + hex, ImageReference{}, "not supported"},
		{"a NUL in the path is rejected", "oci:images/\x00web", ImageReference{}, "NUL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseImage(tc.ref)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("ParseImage(%q): %v", tc.ref, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("ParseImage(%q) error = %v, want one containing %q", tc.ref, err, tc.err)
			case got != tc.want:
				t.Errorf("ParseImage(%q) = %+v, want %+v", tc.ref, got, tc.want)
			}
		})
	}
}
