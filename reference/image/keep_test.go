package image

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"podspec.dev/podspec/ocilayout"
)

func TestIMG004_AKeptImageOutlivesItsLayout(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	store, layout := testStore(t)
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "original", 0o755)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/f"}}, Entrypoint: []string{"/f"}}); err != nil {
		t.Fatal(err)
	}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Kept(img.Digest); !errors.Is(err, ocilayout.ErrNotFound) {
		t.Fatalf("Kept before Keep: %v, want ErrNotFound", err)
	}
	if err := store.Keep(ctx, img); err != nil {
		t.Fatal(err)
	}
	// The layout is rewritten: its old blobs are gone.
	if err := os.RemoveAll(layout); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, bin, "changed", 0o755)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/f"}}}); err != nil {
		t.Fatal(err)
	}
	kept, err := store.Kept(img.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Digest != img.Digest || len(kept.Entrypoint) != 1 || kept.Entrypoint[0] != "/f" || kept.Ref.Path != img.Ref.Path {
		t.Fatalf("kept %+v, want the image resolved before the layout changed", kept)
	}
	dest := filepath.Join(t.TempDir(), "rootfs")
	cleanup, err := store.NewRootfs(ctx, kept, dest)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if data, err := os.ReadFile(filepath.Join(dest, "f")); err != nil || string(data) != "original" {
		t.Fatalf("root filesystem of the kept image holds %q (%v), want the original content", data, err)
	}
}
