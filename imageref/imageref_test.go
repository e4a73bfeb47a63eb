package imageref

import (
	"strings"
	"testing"
)

const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestParse(t *testing.T) {
	cases := []struct {
		name, ref, want  string // want: String(), or the substring of the error after "error: "
		tagged, implicit bool
	}{
		{"a bare name is Docker Hub's library, tag latest", "nginx", "docker.io/library/nginx:latest", true, true},
		{"a tag is kept", "nginx:1.27", "docker.io/library/nginx:1.27", true, false},
		{"an organisation on Docker Hub has no library", "bitnami/redis:7", "docker.io/bitnami/redis:7", true, false},
		{"a host with a dot is a registry", "ghcr.io/org/app:v1", "ghcr.io/org/app:v1", true, false},
		{"a host with a port is a registry, no tag means latest", "127.0.0.1:5000/app", "127.0.0.1:5000/app:latest", true, true},
		{"localhost is a registry", "localhost/app", "localhost/app:latest", true, true},
		{"a digest pins the image", "quay.io/a/b@sha256:" + hex, "quay.io/a/b@sha256:" + hex, false, false},
		{"a tag beside a digest is dropped", "quay.io/a/b:1@sha256:" + hex, "quay.io/a/b@sha256:" + hex, false, false},
		{"an empty reference", "", "error: empty", false, false},
		{"an upper-case repository", "Nginx", "error: lower-case letters", false, false},
		{"a tag with a plus", "nginx:1+2", "error: tag", false, false},
		{"a short digest", "nginx@sha256:abc", "error: 64 hex digits", false, false},
		{"a sha512 digest", "nginx@sha512:" + hex + hex, "error: not supported", false, false},
		{"two at signs", "nginx@sha256:" + hex + "@sha256:" + hex, "error: lower-case hex", false, false},
		{"a URL scheme", "https://ghcr.io/a", "error: no URL scheme", false, false},
		{"the docker transport prefix", "docker://nginx", `error: drop the "docker://"`, false, false},
		{"another transport", "containers-storage:nginx", `error: transport "containers-storage"`, false, false},
		{"an empty path component", "ghcr.io//app", "error: empty path component", false, false},
		{"a trailing slash", "ghcr.io/app/", "error: empty path component", false, false},
		{"a space", "nginx :1", "error: lower-case letters", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(tc.ref)
			if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Parse(%q) = %v, %v; want an error containing %q", tc.ref, r, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.ref, err)
			}
			if got := r.String(); got != tc.want || r.Tagged != tc.tagged || r.ImplicitLatest != tc.implicit {
				t.Errorf("Parse(%q) = %q tagged=%v implicit=%v, want %q %v %v", tc.ref, got, r.Tagged, r.ImplicitLatest, tc.want, tc.tagged, tc.implicit)
			}
		})
	}
}

func TestIsLayout(t *testing.T) {
	if !IsLayout("oci:images/app:v1") || IsLayout("ocix/app") || IsLayout("nginx") {
		t.Fatal("IsLayout must hold exactly for the oci: prefix")
	}
}

// FuzzParse holds Parse to its contract on any input: no panic; an accepted reference renders
// to a fully qualified name that parses again to itself (a fixed point), names a registry, and
// carries a sha256 digest or a tag.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"nginx", "nginx:1.27", "ghcr.io/a/b:c", "localhost:5000/x@sha256:" + hex,
		"a:1@sha256:" + hex, "docker://x", "dir:/x", "a//b", "A", "", "[::1]:5000/a", "x@", "x:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Parse(%q): an empty error message", s)
			}
			return
		}
		out := r.String()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse again: %v", s, out, err)
		}
		if again.String() != out || again.Tagged != r.Tagged {
			t.Fatalf("Parse(%q) = %q, which parses again to %q", s, out, again.String())
		}
		if r.Registry() == "" {
			t.Fatalf("Parse(%q) names no registry", s)
		}
		if !r.Tagged && CheckDigest(r.Name.Identifier()) != nil {
			t.Fatalf("Parse(%q) = %q: neither a tag nor a sha256 digest", s, out)
		}
	})
}
