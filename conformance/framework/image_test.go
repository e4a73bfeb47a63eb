package framework

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/ocilayout"
)

// TestAProbeThatNeedsADynamicLoaderIsRefused: the test image has no libc, so a probe built with
// cgo (the default of a plain `go build` on a host with gcc) would make every container exit 1
// with "no such file or directory". Building the image refuses it, saying how to build it.
func TestAProbeThatNeedsADynamicLoaderIsRefused(t *testing.T) {
	dynamic := "/bin/ls" // Debian's coreutils: always dynamically linked
	if _, err := os.Stat(dynamic); err != nil {
		t.Skip(err)
	}
	err := CheckStatic(dynamic)
	if !errors.Is(err, ErrNotStatic) || !strings.Contains(err.Error(), "ld-linux") || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("CheckStatic(%s) = %v; want ErrNotStatic naming the loader and CGO_ENABLED=0", dynamic, err)
	}
	dir := t.TempDir()
	for name, build := range map[string]func() error{
		"BuildProbeImage": func() error {
			_, err := BuildProbeImage(context.Background(), filepath.Join(dir, "a"), dynamic, "")
			return err
		},
		"BuildProbeImageUser": func() error {
			_, err := BuildProbeImageUser(context.Background(), filepath.Join(dir, "b"), dynamic, "1000")
			return err
		},
		"BuildProbeImageWithFiles": func() error {
			_, err := BuildProbeImageWithFiles(context.Background(), filepath.Join(dir, "c"), dynamic, "t", map[string]string{"/x": "x"})
			return err
		},
	} {
		if err := build(); !errors.Is(err, ErrNotStatic) {
			t.Errorf("%s with a dynamic probe: %v, want ErrNotStatic", name, err)
		}
	}

	text := filepath.Join(dir, "script")
	if err := os.WriteFile(text, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckStatic(text); !errors.Is(err, ErrNotStatic) {
		t.Errorf("CheckStatic of a shell script = %v, want ErrNotStatic", err)
	}
	static := filepath.Join(dir, "static")
	writeStaticELF(t, static)
	if err := CheckStatic(static); err != nil {
		t.Errorf("CheckStatic of an ELF without an interpreter: %v, want nil", err)
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err == nil {
		if err := CheckStatic(ocilayout.BusyboxPath); err != nil {
			t.Errorf("CheckStatic of busybox-static: %v, want nil", err)
		}
	}
}

// writeStaticELF writes the smallest file CheckStatic accepts: an x86-64 ELF executable header
// with no program headers, so no PT_INTERP. Tests that build images without running them use it
// in place of a real probe.
func writeStaticELF(t *testing.T, path string) {
	t.Helper()
	hdr := elf.Header64{
		Type:    uint16(elf.ET_EXEC),
		Machine: uint16(elf.EM_X86_64),
		Version: uint32(elf.EV_CURRENT),
		Ehsize:  64,
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	hdr.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	hdr.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := binary.Write(f, binary.LittleEndian, &hdr); err != nil {
		t.Fatal(err)
	}
}
