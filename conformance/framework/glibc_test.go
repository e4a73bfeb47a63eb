package framework

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"podspec.dev/podspec/ocilayout"
)

// TestTheGlibcProbeImageHoldsAStaticGlibcProgramAndItsUser: the image of the real-program specs
// resolves with the probe as its entrypoint, and the probe the host's gcc made passes its own
// checks on the host, where no filter stands between it and the kernel.
func TestTheGlibcProbeImageHoldsAStaticGlibcProgramAndItsUser(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc on this host")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	ref, err := BuildGlibcProbeImage(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if ref != "oci:"+dir+":glibc" {
		t.Errorf("reference = %q", ref)
	}
	r, err := ocilayout.ParseReference(ref, "")
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocilayout.Resolve(ctx, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(img.Entrypoint, []string{GlibcProbePath}) {
		t.Errorf("entrypoint = %v, want %s", img.Entrypoint, GlibcProbePath)
	}
}

// TestTheGlibcProbePassesOnTheHost builds the probe as BuildGlibcProbeImage does and runs the
// modes that need no root on the host: a probe that failed them unconfined would fail every
// runtime.
func TestTheGlibcProbePassesOnTheHost(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc on this host")
	}
	bin, err := compileGlibcProbe(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"threads", "unknown-syscall", "newer-syscalls"} {
		out, err := exec.Command(bin, mode).CombinedOutput()
		if err != nil {
			t.Errorf("glibcprobe %s: %v\n%s", mode, err, out)
		}
	}
	if out, err := exec.Command(bin, "no-such-mode").CombinedOutput(); err == nil {
		t.Errorf("glibcprobe with an unknown mode succeeded:\n%s", out)
	}
}

func TestAMissingCCompilerIsNamed(t *testing.T) {
	t.Setenv("CC", "/nonexistent/cc")
	_, err := BuildGlibcProbeImage(context.Background(), filepath.Join(t.TempDir(), "layout"))
	if !errors.Is(err, ErrNoCCompiler) {
		t.Fatalf("err = %v, want ErrNoCCompiler", err)
	}
}
