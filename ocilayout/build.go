package ocilayout

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	digest "github.com/opencontainers/go-digest"
	specsgo "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/flock"
)

// BusyboxPath is where Build looks for busybox when BuildOptions.Busybox is set and
// BusyboxBinary is empty (Debian's busybox-static).
const BusyboxPath = "/bin/busybox"

// File places one host file into an image.
type File struct {
	// Source is the host file (followed if it is a symlink).
	Source string
	// Dest is the absolute path in the image.
	Dest string
	// Mode is the file's permission bits; 0 keeps the source's.
	Mode os.FileMode
}

// BuildOptions describe an image to build: one layer made of FromDir, then Busybox, then
// Files (later entries replace earlier ones at the same path), and its configuration.
type BuildOptions struct {
	// FromDir is a directory whose tree becomes the image's root filesystem.
	FromDir string
	// Busybox adds busybox at /bin/busybox with a /bin/<applet> symlink for every applet it
	// lists (`busybox --list`).
	Busybox bool
	// BusyboxBinary is the busybox to copy; default BusyboxPath. It must be static.
	BusyboxBinary string
	// Files are single files to add (e.g. a static binary at /bin/probe).
	Files []File
	// Tag is the org.opencontainers.image.ref.name annotation; default DefaultTag. An
	// existing image with the same tag in the layout is replaced in index.json (its blobs
	// stay).
	Tag string
	// Entrypoint, Cmd, Env, WorkingDir, User and StopSignal go to the image config. When Env
	// has no PATH, PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin is added.
	Entrypoint []string
	Cmd        []string
	Env        []string
	WorkingDir string
	User       string
	StopSignal string
	// Labels go to the image config.
	Labels map[string]string
}

// defaultPath is the PATH put into built images that set none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// buildEpoch is the timestamp of every built file and of the config: builds are reproducible
// (same inputs, same digest).
var buildEpoch = time.Unix(0, 0).UTC()

// layerEntry is one file of the layer being built.
type layerEntry struct {
	hdr    tar.Header
	source string // regular files: host path of the content
}

// Build writes an OCI image layout to layoutDir (created if missing; other images in it are
// kept) holding one single-layer image described by opts, and returns the manifest digest.
// Files in the layer are owned by root, timestamps are fixed, entries sorted: the same inputs
// give the same digest. Directories /dev, /proc, /sys, /etc and /tmp (1777) are always
// present, so the image is usable as an OCI runtime root filesystem.
func Build(ctx context.Context, layoutDir string, opts BuildOptions) (string, error) {
	d, err := build(ctx, layoutDir, opts)
	if err != nil {
		return "", fmt.Errorf("build image in %s: %w", layoutDir, err)
	}
	return d, nil
}

func build(ctx context.Context, layoutDir string, opts BuildOptions) (string, error) {
	tag := opts.Tag
	if tag == "" {
		tag = DefaultTag
	}
	if !tagRE.MatchString(tag) {
		return "", fmt.Errorf("tag %q is not valid ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})", tag)
	}
	if opts.FromDir == "" && !opts.Busybox && len(opts.Files) == 0 {
		return "", errors.New("nothing to put in the image: give a directory, busybox or files")
	}
	entries := map[string]*layerEntry{}
	addDir := func(p string, mode int64) {
		if _, ok := entries[p]; !ok {
			entries[p] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: p + "/", Mode: mode}}
		}
	}
	addParents := func(p string) {
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			addDir(dir, 0o755)
		}
	}
	for _, dir := range []string{"dev", "proc", "sys", "etc"} {
		addDir(dir, 0o755)
	}
	addDir("tmp", 0o1777)

	if opts.FromDir != "" {
		if err := addTree(ctx, opts.FromDir, entries); err != nil {
			return "", err
		}
	}
	if opts.Busybox {
		bb := opts.BusyboxBinary
		if bb == "" {
			bb = BusyboxPath
		}
		applets, err := busyboxApplets(ctx, bb)
		if err != nil {
			return "", err
		}
		addDir("bin", 0o755)
		if err := addFile(entries, File{Source: bb, Dest: "/bin/busybox", Mode: 0o755}); err != nil {
			return "", err
		}
		for _, a := range applets {
			p := "bin/" + a
			if _, ok := entries[p]; ok || a == "busybox" {
				continue
			}
			entries[p] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: p, Linkname: "busybox", Mode: 0o777}}
		}
	}
	for _, f := range opts.Files {
		rel, err := EntryPath(f.Dest)
		if err != nil || rel == "" || !path.IsAbs(f.Dest) {
			return "", fmt.Errorf("file destination %q must be an absolute path inside the image", f.Dest)
		}
		addParents(rel)
		if err := addFile(entries, f); err != nil {
			return "", err
		}
	}

	// Layer: uncompressed tar (for the diff id) and its gzip (the blob), both in memory; the
	// images this builds are small (busybox, static test binaries).
	var tarBuf bytes.Buffer
	if err := writeLayer(ctx, &tarBuf, entries); err != nil {
		return "", err
	}
	diffID := digest.FromBytes(tarBuf.Bytes())
	var gzBuf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&gzBuf, gzip.BestSpeed)
	if err != nil {
		return "", err
	}
	gz.ModTime = buildEpoch
	if _, err := gz.Write(tarBuf.Bytes()); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}

	env := append([]string(nil), opts.Env...)
	hasPath := false
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			hasPath = true
		}
	}
	if !hasPath {
		env = append([]string{"PATH=" + defaultPath}, env...)
	}
	created := buildEpoch
	cfg := ocispec.Image{
		Created:  &created,
		Platform: ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH},
		Config: ocispec.ImageConfig{
			Entrypoint: opts.Entrypoint, Cmd: opts.Cmd, Env: env, WorkingDir: opts.WorkingDir,
			User: opts.User, StopSignal: opts.StopSignal, Labels: opts.Labels,
		},
		RootFS: ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{diffID}},
	}
	cfgBytes, err := json.Marshal(cfg)
	if err != nil {
		return "", err
	}

	if err := os.MkdirAll(filepath.Join(layoutDir, "blobs", "sha256"), 0o755); err != nil {
		return "", err
	}
	unlock, err := flock.Exclusive(ctx, filepath.Join(layoutDir, ".podspec-build.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	layerDesc, err := WriteBlob(layoutDir, ocispec.MediaTypeImageLayerGzip, gzBuf.Bytes())
	if err != nil {
		return "", err
	}
	cfgDesc, err := WriteBlob(layoutDir, ocispec.MediaTypeImageConfig, cfgBytes)
	if err != nil {
		return "", err
	}
	manifest := ocispec.Manifest{
		Versioned: specsgo.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfgDesc,
		Layers:    []ocispec.Descriptor{layerDesc},
	}
	mBytes, err := json.Marshal(manifest)
	if err != nil {
		return "", err
	}
	mDesc, err := WriteBlob(layoutDir, ocispec.MediaTypeImageManifest, mBytes)
	if err != nil {
		return "", err
	}
	mDesc.Annotations = map[string]string{ocispec.AnnotationRefName: tag}
	mDesc.Platform = &ocispec.Platform{OS: "linux", Architecture: runtime.GOARCH}

	layoutBytes, _ := json.Marshal(ocispec.ImageLayout{Version: ocispec.ImageLayoutVersion})
	if err := atomicfile.WriteFile(filepath.Join(layoutDir, ocispec.ImageLayoutFile), layoutBytes, 0o644); err != nil {
		return "", err
	}
	var index ocispec.Index
	indexPath := filepath.Join(layoutDir, ocispec.ImageIndexFile)
	if err := readJSON(indexPath, maxIndex, &index); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	kept := index.Manifests[:0]
	for _, m := range index.Manifests {
		if m.Annotations[ocispec.AnnotationRefName] != tag {
			kept = append(kept, m)
		}
	}
	index.Manifests = append(kept, mDesc)
	index.SchemaVersion = 2
	index.MediaType = ocispec.MediaTypeImageIndex
	iBytes, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(indexPath, iBytes, 0o644); err != nil {
		return "", err
	}
	return string(mDesc.Digest), nil
}

// WriteBlob stores b in the layout's blob directory (created if missing), under its sha256
// digest, atomically, and returns its descriptor with mediaType.
func WriteBlob(layoutDir, mediaType string, b []byte) (ocispec.Descriptor, error) {
	d := digest.FromBytes(b)
	dir := filepath.Join(layoutDir, ocispec.ImageBlobsDir, d.Algorithm().String())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ocispec.Descriptor{}, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, d.Encoded()), b, 0o644); err != nil {
		return ocispec.Descriptor{}, err
	}
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(b))}, nil
}

// appletLists remembers, per busybox binary (device, inode, size and modification time), the
// applets it listed, so a process lists a binary once. Its first Build runs `busybox --list`; later
// ones start no process, which a program that reaps its orphans (the engine's tests run a
// subreaper's Reaper in-process) needs: a plain os/exec child can be reaped before its Wait.
var appletLists = struct {
	sync.Mutex
	m map[binaryID][]string
}{m: map[binaryID][]string{}}

// binaryID identifies one version of one file.
type binaryID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

// busyboxApplets lists the applets of a busybox binary.
func busyboxApplets(ctx context.Context, bb string) ([]string, error) {
	fi, err := os.Stat(bb)
	if err != nil {
		return nil, fmt.Errorf("list busybox applets of %s: %w", bb, err)
	}
	id := binaryID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	appletLists.Lock()
	defer appletLists.Unlock()
	if applets, ok := appletLists.m[id]; ok {
		return applets, nil
	}
	out, err := exec.CommandContext(ctx, bb, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("list busybox applets of %s: %w", bb, err)
	}
	var applets []string
	for _, a := range strings.Fields(string(out)) {
		if a != "." && a != ".." && !strings.ContainsAny(a, "/\x00") {
			applets = append(applets, a)
		}
	}
	if len(applets) == 0 {
		return nil, fmt.Errorf("busybox %s lists no applets", bb)
	}
	appletLists.m[id] = applets
	return applets, nil
}

// addFile adds one regular file (symlinks in Source are followed).
func addFile(entries map[string]*layerEntry, f File) error {
	fi, err := os.Stat(f.Source)
	if err != nil {
		return fmt.Errorf("file %s: %w", f.Source, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("file %s is not a regular file", f.Source)
	}
	rel, err := EntryPath(f.Dest)
	if err != nil || rel == "" {
		return fmt.Errorf("file destination %q is not valid", f.Dest)
	}
	mode := f.Mode.Perm()
	if mode == 0 {
		mode = fi.Mode().Perm()
	}
	entries[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: int64(mode), Size: fi.Size()}, source: f.Source}
	return nil
}

// addTree adds a directory's tree: directories, regular files, symlinks (kept as they are)
// and hardlinked files (as hardlinks). Other file types are rejected.
func addTree(ctx context.Context, dir string, entries map[string]*layerEntry) error {
	links := map[[2]uint64]string{}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := int64(fi.Mode().Perm())
		if fi.Mode()&fs.ModeSetuid != 0 {
			mode |= 0o4000
		}
		if fi.Mode()&fs.ModeSetgid != 0 {
			mode |= 0o2000
		}
		if fi.Mode()&fs.ModeSticky != 0 {
			mode |= 0o1000
		}
		switch {
		case fi.IsDir():
			entries[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: mode}}
		case fi.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			entries[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Name: rel, Linkname: l, Mode: 0o777}}
		case fi.Mode().IsRegular():
			if key, ok := inodeKey(fi); ok {
				if first, seen := links[key]; seen {
					entries[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: rel, Linkname: first}}
					return nil
				}
				links[key] = rel
			}
			entries[rel] = &layerEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: mode, Size: fi.Size()}, source: p}
		default:
			return fmt.Errorf("%s: unsupported file type %s", p, fi.Mode().Type())
		}
		return nil
	})
}

// writeLayer writes the entries as a tar stream in path order (parents first), root-owned,
// with fixed timestamps.
func writeLayer(ctx context.Context, w io.Writer, entries map[string]*layerEntry) error {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tar.NewWriter(w)
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := entries[n]
		h := e.hdr
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		h.ModTime = buildEpoch
		h.Format = tar.FormatPAX
		if h.Typeflag == tar.TypeLink {
			// The link target must be written before the link; sorted order does not
			// guarantee it, so hardlinks whose target sorts later become copies.
			if h.Linkname > n {
				t := entries[h.Linkname]
				h = t.hdr
				h.Name = n
				h.Uid, h.Gid, h.ModTime, h.Format = 0, 0, buildEpoch, tar.FormatPAX
				e = &layerEntry{hdr: h, source: t.source}
			}
		}
		if err := tw.WriteHeader(&h); err != nil {
			return fmt.Errorf("layer entry %s: %w", n, err)
		}
		if h.Typeflag == tar.TypeReg {
			f, err := os.Open(e.source)
			if err != nil {
				return err
			}
			n, err := io.Copy(tw, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("layer entry %s: %w", h.Name, err)
			}
			if n != h.Size {
				return fmt.Errorf("layer entry %s: %s changed size while building", h.Name, e.source)
			}
		}
	}
	return tw.Close()
}

// inodeKey identifies a file with more than one link (device, inode).
func inodeKey(fi fs.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink < 2 {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, true
}
