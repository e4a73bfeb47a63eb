package framework

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"

	"podspec.dev/podspec/ocilayout"
)

// ProbeImageTag is the tag of the test image in its OCI layout.
const ProbeImageTag = "probe"

// ProbePath is where the probe binary lives inside the test image.
const ProbePath = "/podspec-probe"

// BuildProbeImage writes an OCI image layout at dir holding the static probe binary at
// /podspec-probe and, when busybox is not "", a static busybox with its applets in /bin (for
// hooks written as shell commands). It needs no network. It returns the image reference for
// manifests ("oci:DIR:probe").
func BuildProbeImage(ctx context.Context, dir, probeBinary, busybox string) (string, error) {
	return BuildProbeImageTagged(ctx, dir, probeBinary, busybox, ProbeImageTag)
}

// BuildProbeImageTagged is BuildProbeImage with another tag; the layout keeps its other images.
func BuildProbeImageTagged(ctx context.Context, dir, probeBinary, busybox, tag string) (string, error) {
	opts, err := probeImageOptions(probeBinary, tag)
	if err != nil {
		return "", err
	}
	if busybox != "" {
		opts.Busybox = true
		opts.BusyboxBinary = busybox
	}
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the probe image: %w", err)
	}
	return "oci:" + dir + ":" + tag, nil
}

// probeImageOptions describe the test image: the probe as its entrypoint, nothing else. The
// probe must be a static binary (CheckStatic).
func probeImageOptions(probeBinary, tag string) (ocilayout.BuildOptions, error) {
	if err := CheckStatic(probeBinary); err != nil {
		return ocilayout.BuildOptions{}, err
	}
	return ocilayout.BuildOptions{
		Files:      []ocilayout.File{{Source: probeBinary, Dest: ProbePath, Mode: 0o755}},
		Tag:        tag,
		Entrypoint: []string{ProbePath},
		WorkingDir: "/",
	}, nil
}

// ErrNotStatic means a binary for the test image needs a dynamic loader, which the image (the
// probe and busybox, no libc) does not have: every container would fail to start with exit 1
// and "no such file or directory", so the run is refused before it begins.
var ErrNotStatic = errors.New("not a static executable")

// CheckStatic reports whether path is an ELF executable that needs no dynamic loader (no
// PT_INTERP program header), wrapping ErrNotStatic with the loader it names and the way to
// build the probe statically.
func CheckStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("probe binary %s: %w: %v", path, ErrNotStatic, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		interp := make([]byte, p.Filesz)
		if _, err := p.ReadAt(interp, 0); err != nil {
			return fmt.Errorf("probe binary %s: %w: it needs a dynamic loader", path, ErrNotStatic)
		}
		return fmt.Errorf("probe binary %s: %w: it needs the dynamic loader %s, which the test image lacks; "+
			"build it with CGO_ENABLED=0 go build -o bin/podspec-probe ./cmd/podspec-probe",
			path, ErrNotStatic, string(bytes.TrimRight(interp, "\x00")))
	}
	return nil
}

// BuildProbeImageUser writes a test image (the probe, no busybox, no user database) whose
// image configuration sets User, under the tag "probe"; it returns its reference.
func BuildProbeImageUser(ctx context.Context, dir, probeBinary, user string) (string, error) {
	opts, err := probeImageOptions(probeBinary, ProbeImageTag)
	if err != nil {
		return "", err
	}
	opts.User = user
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the probe image with user %q: %w", user, err)
	}
	return "oci:" + dir + ":" + ProbeImageTag, nil
}
