package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/internal/mounttest"
)

func TestParseMountinfo(t *testing.T) {
	all, err := ParseMountinfo(strings.NewReader(`36 35 98:0 /mnt1 /my\040data rw,noatime master:1 - ext3 /dev/root rw,errors=continue
40 35 0:5 / /probe ro,nosuid - tmpfs tmpfs ro
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{
		{Path: "/my data", FSType: "ext3", Source: "/dev/root", Root: "/mnt1", Device: "98:0"},
		{Path: "/probe", FSType: "tmpfs", Source: "tmpfs", Root: "/", Device: "0:5", ReadOnly: true},
	}
	if len(all) != 2 || all[0] != want[0] || all[1] != want[1] {
		t.Fatalf("ParseMountinfo = %+v, want %+v", all, want)
	}
	if got, err := ParseMountinfo(strings.NewReader("garbage\n" + `40 35 0:5 / /probe rw - tmpfs tmpfs rw` + "\n")); err == nil {
		t.Fatalf("a table with a malformed line was read as %+v", got)
	}
}

// TestReadMountsUnescapesRealMounts mounts a tmpfs, and a bind mount of a directory in it, at
// paths the kernel escapes in mountinfo, and finds both with their paths, source and root as
// they were given.
func TestReadMountsUnescapesRealMounts(t *testing.T) {
	dir := t.TempDir()
	var got []Mount
	var tmpfs, bound string
	mounttest.InPrivateNamespace(t, func() error {
		var err error
		if tmpfs, err = mounttest.Tmpfs("src "+mounttest.OddName, dir, mounttest.OddName); err != nil {
			return err
		}
		sub := filepath.Join(tmpfs, "sub"+mounttest.OddName)
		if err := os.Mkdir(sub, 0o755); err != nil {
			return err
		}
		bound = filepath.Join(dir, "bound "+mounttest.OddName)
		if err := mounttest.Bind(sub, bound); err != nil {
			return err
		}
		got, err = ReadMounts()
		return err
	})
	find := func(path string) *Mount {
		for i := range got {
			if got[i].Path == path {
				return &got[i]
			}
		}
		t.Fatalf("no mount at %q in %+v", path, got)
		return nil
	}
	if m := find(tmpfs); m.FSType != "tmpfs" || m.Source != "src "+mounttest.OddName || m.Root != "/" {
		t.Errorf("the tmpfs reads as %+v", *m)
	}
	if m := find(bound); m.FSType != "tmpfs" || m.Root != "/sub"+mounttest.OddName || m.Device != find(tmpfs).Device {
		t.Errorf("the bind mount reads as %+v", *m)
	}
}
