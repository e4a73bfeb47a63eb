package framework

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ProbeImageTag is the tag of the test image in its OCI layout.
const ProbeImageTag = "probe"

// ProbePath is where the probe binary lives inside the test image.
const ProbePath = "/podspec-probe"

// busyboxApplets are linked into the image when busybox is available, for hooks written as
// shell commands.
var busyboxApplets = []string{"sh", "sleep", "true", "false", "cat", "echo", "ls", "touch", "test"}

// BuildProbeImage writes an OCI image layout at dir holding the probe binary at /podspec-probe
// and, when busybox is not "", a static busybox at /bin/busybox with links for a few applets. It
// needs no network. It returns the image reference for manifests ("oci:DIR:probe").
func BuildProbeImage(dir, probeBinary, busybox string) (string, error) {
	layer, diffID, err := buildLayer(probeBinary, busybox)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return "", fmt.Errorf("create image layout: %w", err)
	}
	layerDesc, err := writeBlob(dir, "application/vnd.oci.image.layer.v1.tar+gzip", layer)
	if err != nil {
		return "", err
	}
	config := map[string]any{
		"created":      time.Unix(0, 0).UTC().Format(time.RFC3339),
		"architecture": goarch(),
		"os":           "linux",
		"config": map[string]any{
			"Entrypoint": []string{ProbePath},
			"Env":        []string{"PATH=/bin:/usr/bin"},
			"WorkingDir": "/",
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	}
	configJSON, err := json.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("encode image config: %w", err)
	}
	configDesc, err := writeBlob(dir, "application/vnd.oci.image.config.v1+json", configJSON)
	if err != nil {
		return "", err
	}
	manifest := map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        configDesc,
		"layers":        []any{layerDesc},
	}
	manifestJSON, err := json.Marshal(manifest)
	if err != nil {
		return "", fmt.Errorf("encode image manifest: %w", err)
	}
	manifestDesc, err := writeBlob(dir, "application/vnd.oci.image.manifest.v1+json", manifestJSON)
	if err != nil {
		return "", err
	}
	manifestDesc["annotations"] = map[string]string{"org.opencontainers.image.ref.name": ProbeImageTag}
	index := map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.index.v1+json",
		"manifests":     []any{manifestDesc},
	}
	indexJSON, err := json.Marshal(index)
	if err != nil {
		return "", fmt.Errorf("encode image index: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), indexJSON, 0o644); err != nil {
		return "", fmt.Errorf("write image index: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		return "", fmt.Errorf("write oci-layout: %w", err)
	}
	return "oci:" + dir + ":" + ProbeImageTag, nil
}

// buildLayer returns the gzipped layer and the digest of its uncompressed tar.
func buildLayer(probeBinary, busybox string) ([]byte, string, error) {
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	epoch := time.Unix(0, 0)
	addDir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, ModTime: epoch})
	}
	addFile := func(name, src string, mode int64) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("read %s: %w", src, err)
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}
	for _, d := range []string{"bin", "dev", "etc", "proc", "sys", "tmp", "probe"} {
		if err := addDir(d); err != nil {
			return nil, "", fmt.Errorf("build layer: %w", err)
		}
	}
	if err := addFile("podspec-probe", probeBinary, 0o755); err != nil {
		return nil, "", fmt.Errorf("build layer: %w", err)
	}
	if busybox != "" {
		if err := addFile("bin/busybox", busybox, 0o755); err != nil {
			return nil, "", fmt.Errorf("build layer: %w", err)
		}
		for _, a := range busyboxApplets {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777, ModTime: epoch}); err != nil {
				return nil, "", fmt.Errorf("build layer: %w", err)
			}
		}
	}
	for name, content := range map[string]string{"etc/passwd": "root:x:0:0:root:/:/bin/sh\n", "etc/group": "root:x:0:\n"} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(content)), ModTime: epoch}); err != nil {
			return nil, "", fmt.Errorf("build layer: %w", err)
		}
		if _, err := io.WriteString(tw, content); err != nil {
			return nil, "", fmt.Errorf("build layer: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", fmt.Errorf("build layer: %w", err)
	}
	sum := sha256.Sum256(tarBuf.Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(tarBuf.Bytes()); err != nil {
		return nil, "", fmt.Errorf("compress layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, "", fmt.Errorf("compress layer: %w", err)
	}
	return gz.Bytes(), "sha256:" + hex.EncodeToString(sum[:]), nil
}

// writeBlob stores data under blobs/sha256 and returns its descriptor.
func writeBlob(dir, mediaType string, data []byte) (map[string]any, error) {
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	if err := os.WriteFile(filepath.Join(dir, "blobs", "sha256", hexSum), data, 0o644); err != nil {
		return nil, fmt.Errorf("write blob: %w", err)
	}
	return map[string]any{"mediaType": mediaType, "digest": "sha256:" + hexSum, "size": len(data)}, nil
}
