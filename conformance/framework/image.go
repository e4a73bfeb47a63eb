package framework

import (
	"context"
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
	opts := probeImageOptions(probeBinary, tag)
	if busybox != "" {
		opts.Busybox = true
		opts.BusyboxBinary = busybox
	}
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the probe image: %w", err)
	}
	return "oci:" + dir + ":" + tag, nil
}

// probeImageOptions describe the test image: the probe as its entrypoint, nothing else.
func probeImageOptions(probeBinary, tag string) ocilayout.BuildOptions {
	return ocilayout.BuildOptions{
		Files:      []ocilayout.File{{Source: probeBinary, Dest: ProbePath, Mode: 0o755}},
		Tag:        tag,
		Entrypoint: []string{ProbePath},
		WorkingDir: "/",
	}
}

// BuildProbeImageUser writes a test image (the probe, no busybox, no user database) whose
// image configuration sets User, under the tag "probe"; it returns its reference.
func BuildProbeImageUser(ctx context.Context, dir, probeBinary, user string) (string, error) {
	opts := probeImageOptions(probeBinary, ProbeImageTag)
	opts.User = user
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the probe image with user %q: %w", user, err)
	}
	return "oci:" + dir + ":" + ProbeImageTag, nil
}
