package framework

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

// RawEntry is one entry of a hand-written layer, written exactly as given: no cleaning of its
// name or link target, no safety check. IMG-010 specs use it to give a runtime the `..` names,
// absolute paths, symbolic links and hard links a hostile image holds.
type RawEntry struct {
	// Name is the entry's name in the tar stream.
	Name string
	// Type is a tar type flag: tar.TypeReg, tar.TypeDir, tar.TypeSymlink, tar.TypeLink or
	// tar.TypeFifo.
	Type byte
	// Linkname is the target of a symbolic or hard link.
	Linkname string
	// Content is the data of a regular file.
	Content string
	// Mode is the entry's permission bits (setuid, setgid and sticky included); 0 gives 0755 to
	// a directory, 0777 to a symbolic link and 0644 to anything else.
	Mode int64
	// UID and GID own the entry (0: root).
	UID, GID int
	// ModTime is the entry's modification time (zero: the Unix epoch).
	ModTime time.Time
}

// rawLayer renders entries as an uncompressed tar stream.
func rawLayer(entries []RawEntry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Linkname, Mode: 0o644, ModTime: epoch, Format: tar.FormatPAX,
			Uid: e.UID, Gid: e.GID}
		switch e.Type {
		case tar.TypeReg:
			hdr.Size = int64(len(e.Content))
		case tar.TypeDir:
			hdr.Mode = 0o755
		case tar.TypeSymlink:
			hdr.Mode = 0o777
		}
		if e.Mode != 0 {
			hdr.Mode = e.Mode
		}
		if !e.ModTime.IsZero() {
			hdr.ModTime = e.ModTime
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("tar entry %q: %w", e.Name, err)
		}
		if e.Type == tar.TypeReg {
			if _, err := tw.Write([]byte(e.Content)); err != nil {
				return nil, fmt.Errorf("tar entry %q: %w", e.Name, err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readLayoutJSON decodes the blob d of the layout at dir into v.
func readLayoutJSON(dir string, d digest.Digest, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded()))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// AddRawLayer adds to the OCI layout at dir an image tagged tag: the image tagged base (its
// layers and configuration) with one more, uncompressed layer holding entries written as given.
// It returns the image reference for manifests.
func AddRawLayer(dir, base, tag string, entries []RawEntry) (string, error) {
	return addLayer(dir, base, tag, entries, false)
}

// AddStoredGzipLayer is AddRawLayer with the layer as tar+gzip whose deflate blocks are all
// stored (no compression): the tar's bytes appear in the blob as they are, so a byte of a
// file's content can be changed in the blob and the gzip trailer fixed (IMG-007's altered layer
// that still decompresses).
func AddStoredGzipLayer(dir, base, tag string, entries []RawEntry) (string, error) {
	return addLayer(dir, base, tag, entries, true)
}

func addLayer(dir, base, tag string, entries []RawEntry, storedGzip bool) (string, error) {
	indexPath := filepath.Join(dir, ocispec.ImageIndexFile)
	var index ocispec.Index
	data, err := os.ReadFile(indexPath)
	if err != nil {
		return "", fmt.Errorf("read the layout's index: %w", err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		return "", fmt.Errorf("decode %s: %w", indexPath, err)
	}
	i := slices.IndexFunc(index.Manifests, func(d ocispec.Descriptor) bool { return d.Annotations[ocispec.AnnotationRefName] == base })
	if i < 0 {
		return "", fmt.Errorf("layout %s has no image tagged %q", dir, base)
	}
	baseDesc := index.Manifests[i]
	var manifest ocispec.Manifest
	if err := readLayoutJSON(dir, baseDesc.Digest, &manifest); err != nil {
		return "", fmt.Errorf("read manifest of %q: %w", base, err)
	}
	var config ocispec.Image
	if err := readLayoutJSON(dir, manifest.Config.Digest, &config); err != nil {
		return "", fmt.Errorf("read config of %q: %w", base, err)
	}
	layer, err := rawLayer(entries)
	if err != nil {
		return "", err
	}
	diffID := digest.FromBytes(layer)
	mediaType := ocispec.MediaTypeImageLayer
	if storedGzip {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
		if err != nil {
			return "", err
		}
		if _, err := zw.Write(layer); err != nil {
			return "", err
		}
		if err := zw.Close(); err != nil {
			return "", err
		}
		layer, mediaType = buf.Bytes(), ocispec.MediaTypeImageLayerGzip
	}
	layerDesc, err := ocilayout.WriteBlob(dir, mediaType, layer)
	if err != nil {
		return "", err
	}
	manifest.Layers = append(slices.Clone(manifest.Layers), layerDesc)
	config.RootFS.DiffIDs = append(slices.Clone(config.RootFS.DiffIDs), diffID)
	cfgBytes, err := json.Marshal(config)
	if err != nil {
		return "", err
	}
	if manifest.Config, err = ocilayout.WriteBlob(dir, ocispec.MediaTypeImageConfig, cfgBytes); err != nil {
		return "", err
	}
	mBytes, err := json.Marshal(manifest)
	if err != nil {
		return "", err
	}
	mDesc, err := ocilayout.WriteBlob(dir, ocispec.MediaTypeImageManifest, mBytes)
	if err != nil {
		return "", err
	}
	mDesc.Platform = baseDesc.Platform
	mDesc.Annotations = map[string]string{ocispec.AnnotationRefName: tag}
	index.Manifests = slices.DeleteFunc(index.Manifests, func(d ocispec.Descriptor) bool { return d.Annotations[ocispec.AnnotationRefName] == tag })
	index.Manifests = append(index.Manifests, mDesc)
	out, err := json.Marshal(index)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(indexPath, out, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", indexPath, err)
	}
	return "oci:" + dir + ":" + tag, nil
}

// BuildProbeImageWithFiles is BuildProbeImage (without busybox) plus files of the given content
// (absolute path in the image → content), e.g. to tell two builds of one tag apart (IMG-004).
func BuildProbeImageWithFiles(ctx context.Context, dir, probeBinary, tag string, files map[string]string) (string, error) {
	src, err := os.MkdirTemp(filepath.Dir(dir), ".files-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	opts, err := probeImageOptions(probeBinary, tag)
	if err != nil {
		return "", err
	}
	n := 0
	for dest, content := range files {
		n++
		path := filepath.Join(src, fmt.Sprint(n))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "", err
		}
		opts.Files = append(opts.Files, ocilayout.File{Source: path, Dest: dest, Mode: 0o644})
	}
	if _, err := ocilayout.Build(ctx, dir, opts); err != nil {
		return "", fmt.Errorf("build the probe image: %w", err)
	}
	return "oci:" + dir + ":" + tag, nil
}
