package image

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLookupUser(t *testing.T) {
	root := t.TempDir()
	writeTestFile(t, filepath.Join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1001::/home/app:/bin/sh\n# comment\nnobody:x:65534:65534::/:/bin/false\nbroken:x:one:1::/:/bin/sh\n", 0o644)
	writeTestFile(t, filepath.Join(root, "etc", "group"), "root:x:0:\napp:x:1001:\nwheel:x:10:app,other\naudio:x:29:app\nnogroup:x:65534:\n", 0o644)
	cases := []struct {
		name    string
		spec    string
		want    User
		wantErr bool
	}{
		{"an empty user is root", "", User{}, false},
		{"a name gets its uid, primary gid and supplementary groups", "app", User{UID: 1000, GID: 1001, AdditionalGids: []uint32{10, 29}}, false},
		{"a numeric uid of a known user gets its groups", "1000", User{UID: 1000, GID: 1001, AdditionalGids: []uint32{10, 29}}, false},
		{"an unknown numeric uid gets gid 0", "4242", User{UID: 4242}, false},
		{"uid:gid is taken as is", "4242:77", User{UID: 4242, GID: 77}, false},
		{"name:group resolves the group name", "app:nogroup", User{UID: 1000, GID: 65534}, false},
		{"an unknown name is an error", "ghost", User{}, true},
		{"an unknown group is an error", "app:ghosts", User{}, true},
		{"an empty group is an error", "app:", User{}, true},
		{"name:gid takes the gid and drops the supplementary groups", "app:77", User{UID: 1000, GID: 77}, false},
		{"uid:group resolves the group name", "4242:wheel", User{UID: 4242, GID: 10}, false},
		{"a uid beyond 32 bits is read as a name and not found", "4294967296", User{}, true},
		{"an empty user part is an error", ":10", User{}, true},
		{"a passwd entry with a non-numeric uid is an error", "broken", User{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LookupUser(root, tc.spec)
			if (err != nil) != tc.wantErr {
				t.Fatalf("LookupUser(%q) err = %v, wantErr %v", tc.spec, err, tc.wantErr)
			}
			if err == nil && (got.UID != tc.want.UID || got.GID != tc.want.GID || !slices.Equal(got.AdditionalGids, tc.want.AdditionalGids)) {
				t.Fatalf("LookupUser(%q) = %+v, want %+v", tc.spec, got, tc.want)
			}
		})
	}
}

func TestLookupUserWithoutUserDatabase(t *testing.T) {
	root := t.TempDir() // no /etc/passwd, no /etc/group
	if got, err := LookupUser(root, "4242:77"); err != nil || got.UID != 4242 || got.GID != 77 || len(got.AdditionalGids) != 0 {
		t.Errorf("LookupUser(4242:77) = %+v, %v; numbers need no /etc/passwd", got, err)
	}
	if _, err := LookupUser(root, "app"); err == nil {
		t.Error("a name resolved without an /etc/passwd")
	}
}

func TestLookupUserNeverReadsOutsideTheRoot(t *testing.T) {
	for _, tc := range []struct{ name, link string }{
		{"an absolute symlink", "HOST/passwd"},
		{"a relative symlink climbing out", "../../../../../../../../HOST/passwd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "root")
			writeTestFile(t, filepath.Join(base, "passwd"), "evil:x:0:0::/:/bin/sh\n", 0o644)
			if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
				t.Fatal(err)
			}
			link := strings.ReplaceAll(tc.link, "HOST", base)
			if err := os.Symlink(link, filepath.Join(root, "etc", "passwd")); err != nil {
				t.Fatal(err)
			}
			if _, err := LookupUser(root, "evil"); err == nil {
				t.Fatalf("/etc/passwd -> %s made the host's file be read", link)
			}
		})
	}
}
