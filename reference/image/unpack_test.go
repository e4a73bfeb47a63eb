package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// entry is one tar entry of a hand-made layer.
type entry struct {
	typ      byte
	name     string
	link     string
	body     string
	mode     int64
	devMajor int64
}

func file(name, body string) entry {
	return entry{typ: tar.TypeReg, name: name, body: body, mode: 0o644}
}
func dir(name string) entry { return entry{typ: tar.TypeDir, name: name, mode: 0o755} }
func symlink(name, target string) entry {
	return entry{typ: tar.TypeSymlink, name: name, link: target, mode: 0o777}
}
func hardlink(name, target string) entry { return entry{typ: tar.TypeLink, name: name, link: target} }
func whiteout(name string) entry         { return entry{typ: tar.TypeReg, name: name, mode: 0o644} }
func chardev(name string) entry {
	return entry{typ: tar.TypeChar, name: name, mode: 0o666, devMajor: 1}
}
func fifo(name string) entry                 { return entry{typ: tar.TypeFifo, name: name, mode: 0o644} }
func layer(t *testing.T, es ...entry) []byte { t.Helper(); return tarBytes(t, es) }

func tarBytes(t *testing.T, es []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Typeflag: e.typ, Name: e.name, Linkname: e.link, Mode: e.mode, Size: int64(len(e.body)), Devmajor: e.devMajor}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg && e.body != "" {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sandbox makes <tmp>/root (the root filesystem being extracted) next to <tmp>/outside
// holding a victim file and a victim directory, and returns both paths plus a snapshot
// function listing everything outside the root.
func sandbox(t *testing.T) (root, outside string, snapshot func() []string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, filepath.Join(outside, "vdir")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(outside, "victim"), "original", 0o644)
	writeTestFile(t, filepath.Join(outside, "vdir", "keep"), "keep", 0o644)
	snapshot = func() []string {
		var out []string
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if p == root {
				return filepath.SkipDir
			}
			info := p
			if d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				info += "=" + string(b)
			}
			out = append(out, info)
			return nil
		})
		sort.Strings(out)
		return out
	}
	return root, outside, snapshot
}

func TestMaliciousLayersNeverWriteOutsideTheRoot(t *testing.T) {
	needRoot(t)
	cases := []struct {
		name string
		// layers are built once the sandbox paths are known (absolute-path attacks need them).
		layers  func(outside string) [][]entry
		wantErr bool
		// inside lists files that must exist in the root with the given content afterwards.
		inside func(outside string) map[string]string
		// absent lists paths that must not exist in the root afterwards.
		absent func(outside string) []string
	}{
		{name: "a dot-dot entry name is rejected",
			layers:  func(string) [][]entry { return [][]entry{{file("../outside/victim", "pwned")}} },
			wantErr: true},
		{name: "a dot-dot hidden inside a longer name is rejected",
			layers:  func(string) [][]entry { return [][]entry{{file("a/../../outside/victim", "pwned")}} },
			wantErr: true},
		{name: "an absolute entry name lands inside the root",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(filepath.Join(outside, "victim"), "contained")}}
			},
			inside: func(outside string) map[string]string {
				return map[string]string{strings.TrimPrefix(outside, "/") + "/victim": "contained"}
			}},
		{name: "a write through a relative symlink that climbs out stays inside",
			layers: func(string) [][]entry {
				return [][]entry{{dir("outside"), symlink("esc", "../../../../../outside"), file("esc/victim", "contained")}}
			},
			inside: func(string) map[string]string { return map[string]string{"outside/victim": "contained"} }},
		{name: "a write through an absolute symlink stays inside",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(outside+"/marker", "m"), symlink("esc", outside), file("esc/victim", "contained")}}
			},
			inside: func(outside string) map[string]string {
				return map[string]string{strings.TrimPrefix(outside, "/") + "/victim": "contained"}
			}},
		{name: "a symlink planted by a lower layer to a missing directory fails the write",
			layers: func(outside string) [][]entry {
				return [][]entry{{symlink("etc", outside)}, {file("etc/victim", "contained")}}
			},
			wantErr: true, // the symlink's target does not exist inside the root
		},
		{name: "a symlink chain cannot escape either",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(outside+"/marker", "m"), symlink("a", "b"), symlink("b", "../.."+outside), file("a/victim", "contained")}}
			},
			inside: func(outside string) map[string]string {
				return map[string]string{strings.TrimPrefix(outside, "/") + "/victim": "contained"}
			}},
		{name: "replacing a symlink to an outside file with a file does not touch the target",
			layers: func(outside string) [][]entry {
				return [][]entry{{symlink("victim", filepath.Join(outside, "victim")), file("victim", "contained")}}
			},
			inside: func(string) map[string]string { return map[string]string{"victim": "contained"} }},
		{name: "a hardlink to a file outside is rejected",
			layers: func(outside string) [][]entry {
				return [][]entry{{hardlink("hl", "../outside/victim")}}
			},
			wantErr: true},
		{name: "a hardlink through an escaping symlink links only inside the root",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(outside+"/victim", "inside copy"), symlink("esc", outside), hardlink("hl", "esc/victim")}}
			},
			inside: func(string) map[string]string { return map[string]string{"hl": "inside copy"} }},
		{name: "a hardlink with an absolute target resolves inside the root",
			layers: func(outside string) [][]entry {
				return [][]entry{{file("victim", "inside"), hardlink("hl", "/victim")}}
			},
			inside: func(string) map[string]string { return map[string]string{"hl": "inside"} }},
		{name: "a whiteout through an escaping symlink removes nothing outside",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(outside+"/victim", "inside copy"), file(outside+"/other", "o"), symlink("esc", outside)}, {whiteout("esc/.wh.victim")}}
			},
			inside: func(outside string) map[string]string {
				return map[string]string{strings.TrimPrefix(outside, "/") + "/other": "o"}
			},
			absent: func(outside string) []string { return []string{strings.TrimPrefix(outside, "/") + "/victim"} }},
		{name: "an opaque whiteout through an escaping symlink removes nothing outside",
			layers: func(outside string) [][]entry {
				return [][]entry{{file(outside+"/victim", "inside copy"), file(outside+"/other", "o"), symlink("esc", outside)}, {whiteout("esc/.wh..wh..opq"), file("esc/new", "n")}}
			},
			inside: func(outside string) map[string]string {
				return map[string]string{strings.TrimPrefix(outside, "/") + "/new": "n"}
			},
			absent: func(outside string) []string {
				return []string{strings.TrimPrefix(outside, "/") + "/victim", strings.TrimPrefix(outside, "/") + "/other"}
			}},
		{name: "a dot-dot whiteout is rejected",
			layers:  func(string) [][]entry { return [][]entry{{whiteout(".wh...")}} },
			wantErr: true},
		{name: "device nodes are skipped",
			layers: func(string) [][]entry { return [][]entry{{chardev("dev/mem"), file("ok", "yes")}} },
			inside: func(string) map[string]string { return map[string]string{"ok": "yes"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, outside, snapshot := sandbox(t)
			before := snapshot()
			var err error
			for _, l := range tc.layers(outside) {
				if err = extractLayer(bytes.NewReader(layer(t, l...)), root); err != nil {
					break
				}
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("extract: err = %v, wantErr %v", err, tc.wantErr)
			}
			if after := snapshot(); !slices.Equal(before, after) {
				t.Fatalf("something outside the root changed:\nbefore %v\nafter  %v", before, after)
			}
			var inside map[string]string
			if tc.inside != nil {
				inside = tc.inside(outside)
			}
			for p, want := range inside {
				b, err := os.ReadFile(filepath.Join(root, p))
				if err != nil || string(b) != want {
					t.Errorf("%s in root = %q, %v; want %q", p, b, err, want)
				}
			}
			if tc.absent != nil {
				for _, p := range tc.absent(outside) {
					if _, err := os.Lstat(filepath.Join(root, p)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s still exists in the root: %v", p, err)
					}
				}
			}
			if _, err := os.Lstat(filepath.Join(root, "dev", "mem")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a device node was created: %v", err)
			}
		})
	}
}

func TestWhiteouts(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	lower := layer(t, dir("a"), file("a/b", "1"), file("a/c", "2"), dir("d"), file("d/old", "3"), dir("d/sub"), file("d/sub/x", "4"), file("keep", "5"), fifo("p"))
	upper := layer(t, whiteout("a/.wh.b"), file("d/new", "6"), whiteout("d/.wh..wh..opq"), whiteout(".wh.p"), symlink("keep2", "keep"))
	for i, l := range [][]byte{lower, upper} {
		if err := extractLayer(bytes.NewReader(l), root); err != nil {
			t.Fatalf("layer %d: %v", i, err)
		}
	}
	var got []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p != root {
			rel, _ := filepath.Rel(root, p)
			got = append(got, rel)
		}
		return nil
	})
	want := []string{"a", "a/c", "d", "d/new", "keep", "keep2"}
	if !slices.Equal(got, want) {
		t.Fatalf("tree after whiteouts = %v, want %v (b whited out, d opaque except this layer's new, fifo removed)", got, want)
	}
}
