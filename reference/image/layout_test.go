package image

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	digest "github.com/opencontainers/go-digest"
	specsgo "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

// handLayout writes a layout by hand from tar layers (gzipped when gz), so tests control
// every blob. wrap puts the manifest behind a nested image index. It returns the manifest
// digest.
func handLayout(t *testing.T, dir string, layers [][]byte, gz, wrap bool, diffIDs []digest.Digest) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		t.Fatal(err)
	}
	blob := func(mt string, b []byte) ocispec.Descriptor {
		d, err := ocilayout.WriteBlob(dir, mt, b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	var descs []ocispec.Descriptor
	var ids []digest.Digest
	for _, l := range layers {
		ids = append(ids, digest.FromBytes(l))
		if gz {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			w.Write(l)
			w.Close()
			descs = append(descs, blob(ocispec.MediaTypeImageLayerGzip, buf.Bytes()))
		} else {
			descs = append(descs, blob(ocispec.MediaTypeImageLayer, l))
		}
	}
	if diffIDs != nil {
		ids = diffIDs
	}
	cfg, _ := json.Marshal(ocispec.Image{Platform: ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH},
		RootFS: ocispec.RootFS{Type: "layers", DiffIDs: ids}, Config: ocispec.ImageConfig{Cmd: []string{"x"}}})
	m, _ := json.Marshal(ocispec.Manifest{Versioned: specsgo.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		Config: blob(ocispec.MediaTypeImageConfig, cfg), Layers: descs})
	md := blob(ocispec.MediaTypeImageManifest, m)
	top := md
	if wrap {
		other := md
		other.Platform = &ocispec.Platform{OS: "linux", Architecture: "some-other-arch"}
		other.Digest = digest.Digest("sha256:" + string(bytes.Repeat([]byte("0"), 64)))
		mine := md
		mine.Platform = &ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH}
		idx, _ := json.Marshal(ocispec.Index{Versioned: specsgo.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
			Manifests: []ocispec.Descriptor{other, mine}})
		top = blob(ocispec.MediaTypeImageIndex, idx)
	}
	top.Annotations = map[string]string{ocispec.AnnotationRefName: "hand"}
	index, _ := json.Marshal(ocispec.Index{Versioned: specsgo.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{top}})
	writeTestFile(t, filepath.Join(dir, "index.json"), string(index), 0o644)
	writeTestFile(t, filepath.Join(dir, "oci-layout"), `{"imageLayoutVersion":"1.0.0"}`, 0o644)
	return string(md.Digest)
}

func TestHandMadeLayouts(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	lower := layer(t, dir("etc"), file("etc/a", "1"), file("etc/b", "2"), dir("var"), file("var/old", "3"))
	upper := layer(t, whiteout("etc/.wh.a"), whiteout("var/.wh..wh..opq"), file("var/new", "4"))
	cases := []struct {
		name string
		gz   bool
		wrap bool
	}{
		{"uncompressed layers are applied in order with whiteouts", false, false},
		{"gzipped layers are applied in order with whiteouts", true, false},
		{"a nested image index is followed to this platform's manifest", true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, layoutDir := testStore(t)
			want := handLayout(t, layoutDir, [][]byte{lower, upper}, tc.gz, tc.wrap, nil)
			ref, _ := ocilayout.ParseReference("oci:"+layoutDir+":hand", "")
			img, err := store.Resolve(ctx, ref)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if img.Digest != want {
				t.Fatalf("digest %s, want %s", img.Digest, want)
			}
			root, err := store.Unpack(ctx, img)
			if err != nil {
				t.Fatalf("unpack: %v", err)
			}
			var got []string
			filepath.WalkDir(root, func(p string, _ os.DirEntry, _ error) error {
				if rel, _ := filepath.Rel(root, p); rel != "." {
					got = append(got, rel)
				}
				return nil
			})
			if w := []string{"etc", "etc/b", "var", "var/new"}; !slices.Equal(got, w) {
				t.Fatalf("tree = %v, want %v", got, w)
			}
		})
	}
	t.Run("a layer whose content does not match the config's diff id fails to unpack", func(t *testing.T) {
		store, layoutDir := testStore(t)
		wrong := []digest.Digest{digest.FromBytes(upper), digest.FromBytes(upper)}
		handLayout(t, layoutDir, [][]byte{lower, upper}, true, false, wrong)
		ref, _ := ocilayout.ParseReference("oci:"+layoutDir, "")
		img, err := store.Resolve(ctx, ref)
		if err != nil {
			t.Fatalf("resolve: %v", err)
		}
		if _, err := store.Unpack(ctx, img); !errors.Is(err, ocilayout.ErrDigestMismatch) {
			t.Fatalf("unpack: err = %v, want ErrDigestMismatch", err)
		}
		if entries, _ := os.ReadDir(filepath.Join(store.Root, unpackedDir)); len(entries) != 0 {
			t.Fatalf("a failed unpack left %d cache entries", len(entries))
		}
	})
}
