package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"podspec.dev/podspec/bench/podgen"
)

// referenceParse parses one document with the YAML library, the way Segment.Decode does without
// the fast path; ok is false when the library reports an error or the input is not exactly one
// document.
func referenceParse(data []byte) (n *yaml.Node, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	root := new(yaml.Node)
	if err := dec.Decode(root); err != nil {
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return root, true
}

// sameTree compares two trees field by field, ignoring comments (nothing reads them).
func sameTree(a, b *yaml.Node, path string) error {
	if a == nil || b == nil {
		if a != b {
			return fmt.Errorf("%s: one node is nil", path)
		}
		return nil
	}
	if a.Kind != b.Kind || a.Style != b.Style || a.Tag != b.Tag || a.Value != b.Value ||
		a.Anchor != b.Anchor || a.Alias != nil || b.Alias != nil ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: fast {kind %v style %v tag %q value %q at %d:%d, %d children} vs yaml.v3 {kind %v style %v tag %q value %q at %d:%d, %d children}",
			path, a.Kind, a.Style, a.Tag, a.Value, a.Line, a.Column, len(a.Content),
			b.Kind, b.Style, b.Tag, b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkFast fails when the fast path accepts data and disagrees with the YAML library, or
// accepts what the library rejects.
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := parseFast(data)
	if !ok {
		return false
	}
	ref, refOK := referenceParse(data)
	if !refOK {
		t.Fatalf("the fast path accepted a document the YAML library rejects:\n%s", data)
	}
	if err := sameTree(fast, ref, ""); err != nil {
		t.Fatalf("the fast path and the YAML library disagree: %v\n%s", err, data)
	}
	return true
}

// corpus returns the repository's manifests and generated pods: the seeds of the tests below.
func corpus(t testing.TB) [][]byte {
	var out [][]byte
	for _, dir := range []string{"../testdata", "../examples"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			segs, _ := Split(path, data, DefaultLimits())
			for _, s := range segs {
				out = append(out, s.Data)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 20 {
		out = append(out, []byte(podgen.Pod(i, false)))
	}
	return out
}

// TestFastYAMLAgrees runs both parsers on every corpus document and on line-level variations of
// them, and requires the fast path to take the generated pods (what the benchmark measures).
func TestFastYAMLAgrees(t *testing.T) {
	taken, total := 0, 0
	for _, doc := range corpus(t) {
		total++
		if checkFast(t, doc) {
			taken++
		}
		lines := strings.Split(string(doc), "\n")
		for i := range lines {
			for _, edit := range lineEdits {
				v := append(append(append([]string{}, lines[:i]...), edit(lines[i])...), lines[i+1:]...)
				checkFast(t, []byte(strings.Join(v, "\n")))
			}
		}
	}
	for i := range 20 {
		if !checkFast(t, []byte(podgen.Pod(i, false))) {
			t.Errorf("the fast path gave up on generated pod %d", i)
		}
	}
	t.Logf("fast path took %d of %d corpus documents", taken, total)
}

// lineEdits are small changes to one line that probe indentation, keys, values and comments.
var lineEdits = []func(string) []string{
	func(l string) []string { return nil },
	func(l string) []string { return []string{" " + l} },
	func(l string) []string { return []string{strings.TrimPrefix(l, " ")} },
	func(l string) []string { return []string{l + " # note"} },
	func(l string) []string { return []string{l + ":"} },
	func(l string) []string { return []string{l, l} },
	func(l string) []string { return []string{strings.Replace(l, ": ", ":", 1)} },
	func(l string) []string { return []string{strings.Replace(l, "- ", "-", 1)} },
	func(l string) []string { return []string{strings.Replace(l, ", ", ",", 1)} },
	func(l string) []string { return []string{strings.Replace(l, "]", "", 1)} },
	func(l string) []string { return []string{strings.Replace(l, "{", "[", 1)} },
	func(l string) []string { return []string{strings.Replace(l, "'", "\"", -1)} },
	func(l string) []string { return []string{l, "  " + strings.TrimSpace(l)} },
	func(l string) []string { return []string{l, "---"} },
	func(l string) []string { return []string{strings.Replace(l, ": ", ": - ", 1)} },
}

// FuzzFastYAML checks the fast path against the YAML library on any input.
func FuzzFastYAML(f *testing.F) {
	for _, doc := range corpus(f) {
		f.Add(doc)
	}
	f.Add([]byte("a: [b, {c: d}, 'e''f', \"g\"]\n"))
	f.Add([]byte("---\nk:\n- 1\n- x: y\n  z: 0x1F\n"))
	f.Add([]byte("a: 99999999999999999999\nb: 1e400\nc: -0\nd: -0.0\ne: [9223372036854775808, -9223372036854775809, 1e-400, .inf]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, data)
	})
}

// plainTag's shortcuts give the library's tag.
func TestPlainTagAgreesWithTheLibrary(t *testing.T) {
	for _, v := range []string{
		"", "a", "abc", "Bad_Name", "web-1", "oci:x", "/path", "_x", "y", "Y", "yes", "n", "no", "on", "off", "ON",
		"t", "true", "True", "f", "false", "o", "~", "<<", "<x", ".", ".5", ".inf", ".nan", "null", "Null",
		"0", "1", "12", "123456789012345678", "1234567890123456789", "9223372036854775807", "99999999999999999999",
		"0755", "08", "0x1F", "0o17", "1_000", "1e3", "1.5", "123abc", "12:30", "-1", "+1", "-", "+", "1-2",
	} {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		if got, want := plainTag(n), n.ShortTag(); got != want {
			t.Errorf("plainTag(%q) = %s, the library says %s", v, got, want)
		}
	}
}
