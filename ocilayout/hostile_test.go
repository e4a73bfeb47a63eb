package ocilayout

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// hostileLayout builds a small layout and returns it with the paths of its files: oci-layout,
// index.json and the manifest, config and layer blobs.
func hostileLayout(t *testing.T) (layout string, files map[string]string) {
	t.Helper()
	layout = filepath.Join(t.TempDir(), "layout")
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "x", 0o755)
	digest, err := Build(context.Background(), layout, BuildOptions{Files: []File{{Source: bin, Dest: "/f"}}})
	if err != nil {
		t.Fatal(err)
	}
	blob := func(d string) string {
		return filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(d, "sha256:"))
	}
	var m ocispec.Manifest
	b, err := os.ReadFile(blob(digest))
	if err != nil || json.Unmarshal(b, &m) != nil || len(m.Layers) != 1 {
		t.Fatalf("read the manifest: %v", err)
	}
	return layout, map[string]string{
		"oci-layout": filepath.Join(layout, ocispec.ImageLayoutFile),
		"index.json": filepath.Join(layout, ocispec.ImageIndexFile),
		"manifest":   blob(digest),
		"config":     blob(string(m.Config.Digest)),
		"layer":      blob(string(m.Layers[0].Digest)),
	}
}

// bounded runs f and fails the test if it has not returned after a minute: a read that never
// ends (a link to /dev/zero, a FIFO without a writer) would hang the test instead.
func bounded(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s has not returned after a minute: an unbounded read", what)
		return nil
	}
}

// resolveAndUnpack resolves the layout's image and reads its one layer to the end, as unpacking
// does.
func resolveAndUnpack(layout string) error {
	ctx := context.Background()
	img, err := Resolve(ctx, Reference{Path: layout}, nil)
	if err != nil {
		return err
	}
	l, err := OpenLayer(ctx, layout, img.Manifest.Layers[0], string(img.Config.RootFS.DiffIDs[0]))
	if err != nil {
		return err
	}
	defer l.Close()
	return l.Verify()
}

func TestHostileLayoutFilesAreRefusedWithoutAnUnboundedRead(t *testing.T) {
	faults := []struct {
		name string
		// apply replaces file p of the layout with the fault.
		apply func(t *testing.T, p string)
		want  error
	}{
		{"a symbolic link to /dev/zero", func(t *testing.T, p string) { replaceWithLink(t, p, "/dev/zero") }, ErrNotRegular},
		{"a FIFO without a writer", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular},
		{"a symbolic link to a copy outside the layout", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "copy")
			writeTestFile(t, outside, string(b), 0o644)
			replaceWithLink(t, p, outside)
		}, ErrNotRegular},
		{"a directory", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}, ErrNotRegular},
		{"a huge sparse file", func(t *testing.T, p string) {
			if err := os.Truncate(p, 64<<30); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, file := range []string{"oci-layout", "index.json", "manifest", "config", "layer"} {
		for _, fault := range faults {
			t.Run(file+" is "+fault.name, func(t *testing.T) {
				layout, files := hostileLayout(t)
				if err := resolveAndUnpack(layout); err != nil {
					t.Fatalf("the intact layout: %v", err)
				}
				fault.apply(t, files[file])
				err := bounded(t, "resolving the image", func() error { return resolveAndUnpack(layout) })
				switch {
				case err == nil:
					t.Fatal("the damaged layout resolved")
				case fault.want != nil && !errors.Is(err, fault.want):
					t.Fatalf("err = %v, want %v", err, fault.want)
				case fault.want == nil && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrDigestMismatch):
					t.Fatalf("err = %v, want a size error (ErrUnsupported or ErrDigestMismatch)", err)
				}
			})
		}
	}
}

func TestBlobDirectoriesMustBeInsideTheLayout(t *testing.T) {
	layout, _ := hostileLayout(t)
	blobs := filepath.Join(layout, "blobs")
	moved := filepath.Join(t.TempDir(), "blobs")
	if err := os.Rename(blobs, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, blobs); err != nil {
		t.Fatal(err)
	}
	if err := resolveAndUnpack(layout); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("blobs/ a symbolic link out of the layout: err = %v, want ErrNotRegular", err)
	}
}

func TestALayerBlobThatGrowsAfterResolveIsAMismatch(t *testing.T) {
	layout, files := hostileLayout(t)
	ctx := context.Background()
	img, err := Resolve(ctx, Reference{Path: layout}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(files["layer"], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 1<<20))
	f.Close()
	if _, err := OpenLayer(ctx, layout, img.Manifest.Layers[0], ""); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("OpenLayer of a grown blob: err = %v, want ErrDigestMismatch", err)
	}
}

func TestBuildRefusesAHostileIndexWithoutHanging(t *testing.T) {
	layout, files := hostileLayout(t)
	if err := os.Remove(files["index.json"]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(files["index.json"], 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "g")
	writeTestFile(t, bin, "y", 0o755)
	err := bounded(t, "Build", func() error {
		_, err := Build(context.Background(), layout, BuildOptions{Files: []File{{Source: bin, Dest: "/g"}}, Tag: "two"})
		return err
	})
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Build into a layout whose index.json is a FIFO: err = %v, want ErrNotRegular", err)
	}
}

func replaceWithLink(t *testing.T, p, target string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
