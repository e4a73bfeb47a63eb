package framework

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"podspec.dev/podspec/ocilayout"
)

// glibcProbeSource is the C source of the real-glibc workload (glibc/glibcprobe.c): what the
// specs of SEC-010 to SEC-013 run, because the Go probe makes its system calls without a C
// library and so never meets the calls glibc makes first (clone3, faccessat2 ...).
//
//go:embed glibc/glibcprobe.c
var glibcProbeSource []byte

// GlibcProbePath is where the glibc probe lives in its image; its modes are its arguments:
// "threads", "privdrop USER DIR", "unknown-syscall", "newer-syscalls" (glibc/glibcprobe.c).
const GlibcProbePath = "/glibcprobe"

// GlibcProbeUser is the unprivileged user the glibc probe's image defines in its /etc/passwd
// (UID and GID 1500), also a member of a second group (GID 1600) in its /etc/group.
const GlibcProbeUser = "app"

// glibcProbePasswd and glibcProbeGroup are the image's user database.
const (
	glibcProbePasswd = "root:x:0:0:root:/root:/sbin/nologin\n" + GlibcProbeUser + ":x:1500:1500:app:/home/app:/sbin/nologin\n"
	glibcProbeGroup  = "root:x:0:\n" + GlibcProbeUser + ":x:1500:\nextra:x:1600:" + GlibcProbeUser + "\n"
)

// ErrNoCCompiler means the glibc probe cannot be built: the host lacks a C compiler or glibc's
// static libraries (Debian: gcc and libc6-dev).
var ErrNoCCompiler = errors.New("cannot build the glibc probe")

// BuildGlibcProbeImage compiles the glibc probe with the host's C compiler ($CC, default gcc:
// `gcc -static -pthread -O2`), so that it calls the kernel through the host's glibc as any
// program built there does, and writes an OCI image layout at dir holding it at GlibcProbePath
// (the entrypoint) with an /etc/passwd and /etc/group that define GlibcProbeUser. It returns
// the image reference ("oci:DIR:glibc"). The compiler's output is checked to be static, like
// the Go probe's: the image has no dynamic loader.
func BuildGlibcProbeImage(ctx context.Context, dir string) (string, error) {
	work, err := os.MkdirTemp(filepath.Dir(dir), "glibcprobe-build-")
	if err != nil {
		return "", fmt.Errorf("build the glibc probe: %w", err)
	}
	defer os.RemoveAll(work)
	bin, err := compileGlibcProbe(ctx, work)
	if err != nil {
		return "", err
	}
	passwd, group := filepath.Join(work, "passwd"), filepath.Join(work, "group")
	for name, content := range map[string]string{passwd: glibcProbePasswd, group: glibcProbeGroup} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			return "", fmt.Errorf("build the glibc probe image: %w", err)
		}
	}
	const tag = "glibc"
	_, err = ocilayout.Build(ctx, dir, ocilayout.BuildOptions{
		Files: []ocilayout.File{
			{Source: bin, Dest: GlibcProbePath, Mode: 0o755},
			{Source: passwd, Dest: "/etc/passwd", Mode: 0o644},
			{Source: group, Dest: "/etc/group", Mode: 0o644},
		},
		Tag:        tag,
		Entrypoint: []string{GlibcProbePath},
		WorkingDir: "/",
	})
	if err != nil {
		return "", fmt.Errorf("build the glibc probe image: %w", err)
	}
	return "oci:" + dir + ":" + tag, nil
}

// compileGlibcProbe writes the probe's source into work and compiles it there with $CC
// (default gcc), statically; it returns the binary's path.
func compileGlibcProbe(ctx context.Context, work string) (string, error) {
	src, bin := filepath.Join(work, "glibcprobe.c"), filepath.Join(work, "glibcprobe")
	if err := os.WriteFile(src, glibcProbeSource, 0o644); err != nil {
		return "", fmt.Errorf("build the glibc probe: %w", err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, cc, "-static", "-pthread", "-O2", "-o", bin, src)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: %s -static -pthread: %v (the real-program specs need a C compiler and glibc's static libraries, Debian's gcc and libc6-dev)\n%s",
			ErrNoCCompiler, cc, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if err := CheckStatic(bin); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCCompiler, err)
	}
	return bin, nil
}
