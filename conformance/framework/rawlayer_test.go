package framework

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/conformance/probe"
)

func TestRawLayerKeepsHostileNamesAsGiven(t *testing.T) {
	entries := []RawEntry{
		{Name: "../../escape", Type: tar.TypeReg, Content: "x"},
		{Name: "/abs/file", Type: tar.TypeReg},
		{Name: "link", Type: tar.TypeSymlink, Linkname: "/outside"},
		{Name: "link/through", Type: tar.TypeReg, Content: "y"},
		{Name: "hard", Type: tar.TypeLink, Linkname: "../../victim"},
	}
	data, err := rawLayer(entries)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(data))
	for i, want := range entries {
		hdr, err := tr.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if hdr.Name != want.Name || hdr.Typeflag != want.Type || hdr.Linkname != want.Linkname {
			t.Errorf("entry %d = %q type %c link %q, want %+v", i, hdr.Name, hdr.Typeflag, hdr.Linkname, want)
		}
		if body, _ := io.ReadAll(tr); string(body) != want.Content {
			t.Errorf("entry %d content %q, want %q", i, body, want.Content)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("extra entries: %v", err)
	}
}

func TestAddRawLayerStacksALayerOnTheBaseImageUnderANewTag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "layout")
	bin := filepath.Join(t.TempDir(), "probe")
	writeStaticELF(t, bin)
	if _, err := BuildProbeImageWithFiles(t.Context(), dir, bin, "base", map[string]string{"/etc/marker": "one"}); err != nil {
		t.Fatal(err)
	}
	ref, err := AddRawLayer(dir, "base", "hostile", []RawEntry{{Name: "../x", Type: tar.TypeReg, Content: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if ref != "oci:"+dir+":hostile" {
		t.Errorf("reference %q", ref)
	}
	var index ocispec.Index
	data, _ := os.ReadFile(filepath.Join(dir, ocispec.ImageIndexFile))
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	manifests := map[string]ocispec.Manifest{}
	for _, d := range index.Manifests {
		var m ocispec.Manifest
		if err := readLayoutJSON(dir, d.Digest, &m); err != nil {
			t.Fatal(err)
		}
		manifests[d.Annotations[ocispec.AnnotationRefName]] = m
	}
	base, hostile := manifests["base"], manifests["hostile"]
	if len(base.Layers) != 1 || len(hostile.Layers) != 2 || hostile.Layers[0].Digest != base.Layers[0].Digest {
		t.Fatalf("base layers %v, hostile layers %v: want the base layer plus one", base.Layers, hostile.Layers)
	}
	var cfg ocispec.Image
	if err := readLayoutJSON(dir, hostile.Config.Digest, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.RootFS.DiffIDs) != 2 || cfg.RootFS.DiffIDs[1] != hostile.Layers[1].Digest || len(cfg.Config.Entrypoint) == 0 {
		t.Fatalf("config %+v: want the base's config with the new layer's diff ID", cfg)
	}
}

func TestHostPathOfMapsABindMountToTheHostPathOfItsObject(t *testing.T) {
	host := []probe.Mount{
		{Path: "/", Device: "0:40", Root: "/", FSType: "overlay"},
		{Path: "/data", Device: "8:1", Root: "/srv", FSType: "ext4"},
		{Path: "/sys/fs/cgroup", Device: "0:30", Root: "/", FSType: "cgroup2"},
	}
	for _, c := range []struct {
		name string
		in   probe.Mount
		want string
		ok   bool
	}{
		{"a directory of the root filesystem", probe.Mount{Path: "/", Device: "0:40", Root: "/var/lib/rt/pods/x/rootfs"}, "/var/lib/rt/pods/x/rootfs", true},
		{"a directory below a host mount with its own root", probe.Mount{Path: "/v", Device: "8:1", Root: "/srv/vol/a"}, "/data/vol/a", true},
		{"the host mount itself", probe.Mount{Path: "/v", Device: "8:1", Root: "/srv"}, "/data", true},
		{"a root outside every host mount of the device", probe.Mount{Path: "/v", Device: "8:1", Root: "/srvx"}, "", false},
		{"a filesystem the host does not see", probe.Mount{Path: "/proc", Device: "0:99", Root: "/", FSType: "proc"}, "", false},
		{"the container's own cgroup", probe.Mount{Path: "/sys/fs/cgroup", Device: "0:30", Root: "/", FSType: "cgroup2"}, "", false},
	} {
		got, ok := HostPathOf(c.in, host)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: HostPathOf = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
