package image

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/moby/sys/mountinfo"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (ownership, overlay mounts)")
	}
}

// checkNoMounts fails if anything is still mounted below dir.
func checkNoMounts(t *testing.T, dir string) {
	t.Helper()
	mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mounts {
		t.Errorf("mount left behind: %q (%s from %s)", m.Mountpoint, m.FSType, m.Source)
	}
}

// testStore returns a store and a layout directory in a fresh temp dir, and checks at the end
// that no mount is left below it.
func testStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(func() { checkNoMounts(t, dir) })
	return &Store{Root: filepath.Join(dir, "store")}, filepath.Join(dir, "layout")
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

func TestBuildResolveUnpackRootfsRoundTrip(t *testing.T) {
	needRoot(t)
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("busybox-static not installed")
	}
	ctx := context.Background()
	store, layout := testStore(t)
	src := t.TempDir()
	writeTestFile(t, filepath.Join(src, "etc", "motd"), "hello\n", 0o644)
	writeTestFile(t, filepath.Join(src, "usr", "bin", "tool"), "#!/bin/sh\n", 0o755)
	if err := os.Symlink("tool", filepath.Join(src, "usr", "bin", "tool-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "etc", "motd"), filepath.Join(src, "etc", "motd.hard")); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "probe")
	writeTestFile(t, extra, "binary", 0o700)

	dgst, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{
		FromDir: src, Busybox: true, Files: []ocilayout.File{{Source: extra, Dest: "/opt/probe/probe", Mode: 0o755}},
		Tag: "v1", Entrypoint: []string{"/bin/sh", "-c"}, Cmd: []string{"echo hi"}, Env: []string{"A=b"},
		WorkingDir: "/tmp", User: "0:0", StopSignal: "SIGINT",
	})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	again, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{
		FromDir: src, Busybox: true, Files: []ocilayout.File{{Source: extra, Dest: "/opt/probe/probe", Mode: 0o755}},
		Tag: "v1", Entrypoint: []string{"/bin/sh", "-c"}, Cmd: []string{"echo hi"}, Env: []string{"A=b"},
		WorkingDir: "/tmp", User: "0:0", StopSignal: "SIGINT",
	})
	if err != nil || again != dgst {
		t.Fatalf("rebuild gave %s, %v; want the same digest %s (reproducible build)", again, err, dgst)
	}

	ref, err := ocilayout.ParseReference("oci:layout:v1", filepath.Dir(layout))
	if err != nil {
		t.Fatal(err)
	}
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	if img.Digest != dgst {
		t.Errorf("resolved digest %s, built %s", img.Digest, dgst)
	}
	if !slices.Equal(img.Entrypoint, []string{"/bin/sh", "-c"}) || !slices.Equal(img.Cmd, []string{"echo hi"}) ||
		!slices.Contains(img.Env, "A=b") || !slices.ContainsFunc(img.Env, func(s string) bool { return strings.HasPrefix(s, "PATH=") }) ||
		img.WorkingDir != "/tmp" || img.User != "0:0" || img.StopSignal != "SIGINT" {
		t.Errorf("image config = %+v", img.Config.Config)
	}

	dir, err := store.Unpack(ctx, img)
	if err != nil {
		t.Fatalf("unpack: %v", err)
	}
	for p, want := range map[string]string{"etc/motd": "hello\n", "etc/motd.hard": "hello\n", "opt/probe/probe": "binary"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if l, err := os.Readlink(filepath.Join(dir, "bin", "sh")); err != nil || l != "busybox" {
		t.Errorf("bin/sh -> %q, %v; want busybox", l, err)
	}
	if l, err := os.Readlink(filepath.Join(dir, "usr", "bin", "tool-link")); err != nil || l != "tool" {
		t.Errorf("tool-link -> %q, %v", l, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tmp")); err != nil || fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("tmp mode = %v, %v; want sticky 0777", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "opt/probe/probe")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("probe mode = %v, %v; want 0755", fi.Mode(), err)
	}
	if again, err := store.Unpack(ctx, img); err != nil || again != dir {
		t.Errorf("second unpack = %s, %v; want the cached %s", again, err, dir)
	}

	// Fresh root filesystem per instance.
	bundles := t.TempDir()
	first := filepath.Join(bundles, "a", "rootfs")
	if err := os.MkdirAll(filepath.Dir(first), 0o700); err != nil {
		t.Fatal(err)
	}
	cleanA, kind, err := store.NewRootfsKind(ctx, img, first)
	if err != nil {
		t.Fatalf("rootfs a: %v", err)
	}
	if kind != RootfsOverlay {
		t.Logf("overlay mount failed here; used a %s", kind)
	}
	writeTestFile(t, filepath.Join(first, "tmp", "scribble"), "x", 0o644)
	if err := os.Remove(filepath.Join(first, "etc", "motd")); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(bundles, "b", "rootfs")
	if err := os.MkdirAll(filepath.Dir(second), 0o700); err != nil {
		t.Fatal(err)
	}
	cleanB, err := store.NewRootfs(ctx, img, second)
	if err != nil {
		t.Fatalf("rootfs b: %v", err)
	}
	if _, err := os.Stat(filepath.Join(second, "tmp", "scribble")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file written in one instance is visible in the next: %v", err)
	}
	if _, err := os.Stat(filepath.Join(second, "etc", "motd")); err != nil {
		t.Errorf("a file removed in one instance is missing in the next: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tmp", "scribble")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an instance wrote into the image cache: %v", err)
	}
	for _, c := range []func() error{cleanA, cleanB, cleanA} { // cleanup is idempotent
		if err := c(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}
	for _, p := range []string{first, first + ".overlay", second} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after cleanup", p)
		}
	}
}

func TestCopyFallbackGivesTheSameTree(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	src := t.TempDir()
	writeTestFile(t, filepath.Join(src, "a", "f"), "data", 0o640)
	if err := os.Symlink("f", filepath.Join(src, "a", "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "a", "f"), filepath.Join(src, "a", "h")); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := copyTree(ctx, src, dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "a", "h")); err != nil || string(b) != "data" {
		t.Errorf("hardlink copy = %q, %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "a", "l")); err != nil || l != "f" {
		t.Errorf("symlink copy = %q, %v", l, err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "a", "f")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, %v", fi.Mode(), err)
	}
}

func TestCorruptedOrMissingBlobs(t *testing.T) {
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "content", 0o755)
	setup := func(t *testing.T) (*Store, ocilayout.Reference, *ocilayout.Image) {
		store, layout := testStore(t)
		if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/f"}}}); err != nil {
			t.Fatal(err)
		}
		ref, err := ocilayout.ParseReference("oci:"+layout, "")
		if err != nil {
			t.Fatal(err)
		}
		img, err := store.Resolve(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		return store, ref, img
	}
	blob := func(ref ocilayout.Reference, d ocispec.Descriptor) string {
		return filepath.Join(ref.Path, "blobs", "sha256", strings.TrimPrefix(string(d.Digest), "sha256:"))
	}
	cases := []struct {
		name    string
		damage  func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image)
		wantErr error
	}{
		{"a flipped byte in a layer is a digest mismatch", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			p := blob(ref, img.Manifest.Layers[0])
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0xff
			writeTestFile(t, p, string(b), 0o644)
		}, ocilayout.ErrDigestMismatch},
		{"an edited config is a digest mismatch", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			writeTestFile(t, blob(ref, img.Manifest.Config), `{"architecture":"amd64"}`, 0o644)
		}, ocilayout.ErrDigestMismatch},
		{"a missing layer blob is not found", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			os.Remove(blob(ref, img.Manifest.Layers[0]))
		}, ocilayout.ErrNotFound},
		{"a missing manifest blob is not found", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			os.Remove(filepath.Join(ref.Path, "blobs", "sha256", strings.TrimPrefix(img.Digest, "sha256:")))
		}, ocilayout.ErrNotFound},
		{"a missing oci-layout file is not a layout", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			os.Remove(filepath.Join(ref.Path, "oci-layout"))
		}, ocilayout.ErrNotFound},
		{"a layer blob linked to /dev/zero is refused, not read forever", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			p := blob(ref, img.Manifest.Layers[0])
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, ocilayout.ErrNotRegular},
		{"a layer blob that is a FIFO is refused, not waited on", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			p := blob(ref, img.Manifest.Layers[0])
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, ocilayout.ErrNotRegular},
		{"a manifest blob linked to /dev/zero is refused", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			p := filepath.Join(ref.Path, "blobs", "sha256", strings.TrimPrefix(img.Digest, "sha256:"))
			os.Remove(p)
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, ocilayout.ErrNotRegular},
		{"an oversize layer blob is a size mismatch, found before it is read", func(t *testing.T, ref ocilayout.Reference, img *ocilayout.Image) {
			if err := os.Truncate(blob(ref, img.Manifest.Layers[0]), 64<<30); err != nil {
				t.Fatal(err)
			}
		}, ocilayout.ErrDigestMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store, ref, img := setup(t)
			tc.damage(t, ref, img)
			_, err := store.Resolve(ctx, ref)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("resolve: err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), ref.Path) {
				t.Errorf("error %q does not name the layout", err)
			}
			// Unpacking an image resolved before the damage fails too and leaves no cache entry.
			if tc.wantErr != ocilayout.ErrNotFound && strings.Contains(tc.name, "a layer") {
				if _, err := store.Unpack(ctx, img); !errors.Is(err, tc.wantErr) {
					t.Fatalf("unpack: err = %v, want %v", err, tc.wantErr)
				}
				entries, _ := os.ReadDir(filepath.Join(store.Root, unpackedDir))
				tmps, _ := os.ReadDir(filepath.Join(store.Root, "tmp"))
				if len(entries)+len(tmps) != 0 {
					t.Errorf("failed unpack left %d cache and %d temp entries", len(entries), len(tmps))
				}
			}
		})
	}
}

func TestConcurrentUnpackRunsOnce(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	store, layout := testStore(t)
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "content", 0o755)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/bin/f"}}}); err != nil {
		t.Fatal(err)
	}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	errs := make([]error, 8)
	for i := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = store.Unpack(ctx, img)
		}()
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("unpack %d = %s, %v; want %s", i, dirs[i], errs[i], dirs[0])
		}
	}
	tmps, _ := os.ReadDir(filepath.Join(store.Root, "tmp"))
	if len(tmps) != 0 {
		t.Errorf("%d temporary unpack dirs left", len(tmps))
	}
}

func TestResolveOfAnUnpackedImageSkipsLayerHashing(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	store, layout := testStore(t)
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "content", 0o755)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/f"}}}); err != nil {
		t.Fatal(err)
	}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Unpack(ctx, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(string(img.Manifest.Layers[0].Digest), "sha256:"))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Resolve(ctx, ref); err != nil {
		t.Fatalf("resolve of an unpacked image needs its layer blob: %v", err)
	}
	fresh := &Store{Root: filepath.Join(t.TempDir(), "other")}
	if _, err := fresh.Resolve(ctx, ref); !errors.Is(err, ocilayout.ErrNotFound) {
		t.Fatalf("a store without the unpacked image: err = %v, want ocilayout.ErrNotFound for the missing layer", err)
	}
}

func TestUnpackRemovesLeftoversOfACrashedUnpack(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	store, layout := testStore(t)
	bin := filepath.Join(t.TempDir(), "f")
	writeTestFile(t, bin, "content", 0o755)
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: bin, Dest: "/f"}}}); err != nil {
		t.Fatal(err)
	}
	ref, _ := ocilayout.ParseReference("oci:"+layout, "")
	img, err := store.Resolve(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(store.Root, "tmp", strings.TrimPrefix(img.Digest, "sha256:")[:12]+"-crashed")
	writeTestFile(t, filepath.Join(stale, "half"), "x", 0o644)
	if _, err := store.Unpack(ctx, img); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale unpack directory %s survived: %v", stale, err)
	}
}
