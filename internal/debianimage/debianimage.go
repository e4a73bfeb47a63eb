// Package debianimage makes a real Debian root filesystem into an OCI image layout, for the
// tests and benchmarks that run Debian's own programs (nginx, curl, Python): mmdebstrap, from the
// Debian mirror this machine uses, packed as one uncompressed layer, made once and kept in a
// cache directory.
package debianimage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

// Packages are the packages of the image beside minbase: a web server that starts as root and
// drops to www-data, a client, and an interpreter with threads.
var Packages = []string{"nginx-light", "curl", "python3-minimal"}

// Suite is the Debian release the image is made of, and its tag in the layout.
const Suite = "bookworm"

// ErrUnavailable wraps the reasons the image cannot be made on this machine (no mmdebstrap, no
// mirror): callers that only use the image skip, rather than fail.
var ErrUnavailable = errors.New("the Debian image cannot be made here")

// DefaultCache is $PODSPEC_TEST_CACHE, or the user's cache directory + /podspec-test.
func DefaultCache() (string, error) {
	if c := os.Getenv("PODSPEC_TEST_CACHE"); c != "" {
		return c, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: no cache directory: %v", ErrUnavailable, err)
	}
	return filepath.Join(dir, "podspec-test"), nil
}

// Layout returns an OCI image layout under cache holding `mmdebstrap --variant=minbase
// --include=Packages Suite` as one uncompressed layer, tagged Suite, making it the first time
// (25 s to minutes, and the Debian mirror); the layout's name is keyed by the suite, the
// packages and the architecture.
func Layout(cache string) (string, error) {
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		return "", fmt.Errorf("%w: needs mmdebstrap (scripts/install-deps.sh installs it)", ErrUnavailable)
	}
	key := sha256.Sum256([]byte("mmdebstrap --variant=minbase " + Suite + " " + strings.Join(Packages, ",") + " " + runtime.GOARCH))
	layout := filepath.Join(cache, "debian-"+Suite+"-"+hex.EncodeToString(key[:6]))
	if _, err := os.Stat(filepath.Join(layout, ocispec.ImageIndexFile)); err == nil {
		return layout, nil
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(cache, "debian-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	tarball := filepath.Join(work, "rootfs.tar")
	var stderr bytes.Buffer
	cmd := exec.Command("mmdebstrap", "--variant=minbase", "--include="+strings.Join(Packages, ","), Suite, tarball)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%w: mmdebstrap (is the Debian mirror reachable?): %v\n%s", ErrUnavailable, err, lastLines(stderr.String(), 15))
	}
	built := filepath.Join(work, "layout")
	if err := writeOneLayerLayout(built, tarball, Suite); err != nil {
		return "", err
	}
	if err := os.Rename(built, layout); err != nil && !os.IsExist(err) {
		return "", err
	}
	return layout, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// writeOneLayerLayout writes an OCI image layout at dir whose one image, tagged tag, has the
// tar file tarball as its only (uncompressed) layer, streamed into the blob store while it is
// hashed, and a configuration with Debian's PATH.
func writeOneLayerLayout(dir, tarball, tag string) error {
	blobs := filepath.Join(dir, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return err
	}
	src, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(blobs, "layer-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	d := digest.SHA256.Digester()
	size, err := io.Copy(io.MultiWriter(tmp, d.Hash()), src)
	if err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	layerDigest := d.Digest()
	if err := os.Rename(tmp.Name(), filepath.Join(blobs, layerDigest.Encoded())); err != nil {
		return err
	}
	layer := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageLayer, Digest: layerDigest, Size: size}

	cfg, err := json.Marshal(ocispec.Image{
		Platform: ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH},
		Config:   ocispec.ImageConfig{Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, Cmd: []string{"/bin/sh"}},
		RootFS:   ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{layerDigest}},
	})
	if err != nil {
		return err
	}
	cfgDesc, err := ocilayout.WriteBlob(dir, ocispec.MediaTypeImageConfig, cfg)
	if err != nil {
		return err
	}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, Config: cfgDesc, Layers: []ocispec.Descriptor{layer}}
	m.SchemaVersion = 2
	mb, err := json.Marshal(m)
	if err != nil {
		return err
	}
	mDesc, err := ocilayout.WriteBlob(dir, ocispec.MediaTypeImageManifest, mb)
	if err != nil {
		return err
	}
	mDesc.Annotations = map[string]string{ocispec.AnnotationRefName: tag}
	mDesc.Platform = &ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH}
	index := ocispec.Index{MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{mDesc}}
	index.SchemaVersion = 2
	ib, err := json.Marshal(index)
	if err != nil {
		return err
	}
	lb, err := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ocispec.ImageLayoutFile), lb, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ocispec.ImageIndexFile), ib, 0o644)
}
