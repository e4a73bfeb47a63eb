package ocilayout

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseReference(t *testing.T) {
	cases := []struct {
		name    string
		ref     string
		want    Reference
		wantErr bool
	}{
		{"a relative path is resolved against the base dir", "oci:images/app", Reference{Path: "/base/images/app"}, false},
		{"a tag follows the last colon", "oci:images/app:v1.2", Reference{Path: "/base/images/app", Tag: "v1.2"}, false},
		{"an absolute path ignores the base dir", "oci:/srv/img:latest", Reference{Path: "/srv/img", Tag: "latest"}, false},
		{"a digest follows the at sign", "oci:./app@sha256:" + strings.Repeat("ab", 32), Reference{Path: "/base/app", Digest: "sha256:" + strings.Repeat("ab", 32)}, false},
		{"a colon inside a directory name is part of the path", "oci:/srv/a:b/img", Reference{Path: "/srv/a:b/img"}, false},
		{"dot-dot is cleaned", "oci:../x", Reference{Path: "/x"}, false},
		{"a short digest is rejected", "oci:app@sha256:abc", Reference{}, true},
		{"a non-sha256 digest is rejected", "oci:app@md5:" + strings.Repeat("a", 32), Reference{}, true},
		{"an empty path is rejected", "oci::v1", Reference{}, true},
		{"a docker transport is rejected", "docker://busybox:latest", Reference{}, true},
		{"a registry name is rejected", "busybox", Reference{}, true},
		{"an invalid tag is rejected", "oci:app:-bad", Reference{}, true},
		{"a digest one hex digit too long is rejected", "oci:app@sha256:" + strings.Repeat("ab", 32) + "a", Reference{}, true},
		{"a tag of 128 characters is a tag", "oci:app:" + strings.Repeat("t", 128), Reference{Path: "/base/app", Tag: strings.Repeat("t", 128)}, false},
		{"a tag of 129 characters is rejected", "oci:app:" + strings.Repeat("t", 129), Reference{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseReference(tc.ref, "/base")
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidReference) {
					t.Fatalf("ParseReference(%q) = %+v, %v; want ErrInvalidReference", tc.ref, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseReference(%q) = %+v, %v; want %+v", tc.ref, got, err, tc.want)
			}
		})
	}
}

func writeTestFile(t *testing.T, p, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func TestTagAndDigestSelection(t *testing.T) {
	ctx := context.Background()
	layout := filepath.Join(t.TempDir(), "layout")
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "x", 0o755)
	build := func(tag string, cmd string) string {
		d, err := Build(ctx, layout, BuildOptions{Files: []File{{Source: bin, Dest: "/f"}}, Tag: tag, Cmd: []string{cmd}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	only := build("v1", "one")
	resolve := func(ref string) (*Image, error) {
		r, err := ParseReference(ref, "")
		if err != nil {
			t.Fatal(err)
		}
		return Resolve(ctx, r, nil)
	}
	img, err := resolve("oci:" + layout)
	if err != nil || img.Digest != only {
		t.Fatalf("the only image is picked without a tag: %v, %v", img, err)
	}
	latest := build("latest", "two")
	v2 := build("v2", "three")
	replaced := build("v1", "four")

	cases := []struct {
		name    string
		ref     string
		want    string
		wantErr error
	}{
		{"a tag selects its image", "oci:" + layout + ":v2", v2, nil},
		{"the latest tag is an ordinary tag", "oci:" + layout + ":latest", latest, nil},
		{"no tag among several images is ambiguous", "oci:" + layout, "", ErrNotFound},
		{"a digest selects its image", "oci:" + layout + "@" + v2, v2, nil},
		{"rebuilding a tag replaces it", "oci:" + layout + ":v1", replaced, nil},
		{"an unknown tag is not found", "oci:" + layout + ":nope", "", ErrNotFound},
		{"an unknown digest is not found", "oci:" + layout + "@sha256:" + strings.Repeat("0", 64), "", ErrNotFound},
		{"a missing layout is not found", "oci:" + layout + "-missing", "", ErrNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			img, err := resolve(tc.ref)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || img.Digest != tc.want {
				t.Fatalf("resolve = %v, %v; want digest %s", img, err, tc.want)
			}
		})
	}
	if _, err := resolve("oci:" + layout + ":nope"); err == nil || !strings.Contains(err.Error(), "v2") {
		t.Errorf("unknown-tag error %v does not list the available tags", err)
	}
}

// A process lists a busybox binary's applets once: a second Build of the same binary starts no
// process (the binary, made unexecutable, still builds), and a changed binary is listed again
// (the unexecutable one then fails).
func TestBusyboxIsListedOncePerBinary(t *testing.T) {
	src, err := os.ReadFile(BusyboxPath)
	if err != nil {
		t.Skipf("needs busybox-static: %v", err)
	}
	dir := t.TempDir()
	bb := filepath.Join(dir, "busybox")
	if err := os.WriteFile(bb, src, 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(name string) error {
		_, err := Build(context.Background(), filepath.Join(dir, name), BuildOptions{Busybox: true, BusyboxBinary: bb})
		return err
	}
	if err := build("first"); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := build("second"); err != nil {
		t.Fatalf("the second Build of the same binary ran it again: %v", err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(bb, later, later); err != nil {
		t.Fatal(err)
	}
	if err := build("changed"); err == nil {
		t.Fatal("a changed, unexecutable busybox built: its applets were not listed again")
	}
}
