package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
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
//
// It also holds the fast path's value mode (parseFastValue, what Segment.Decode runs first) to
// the converter: whatever it accepts, the node mode accepts too, and converting that tree gives
// the same value and no finding. It may give up where the converter would report a finding.
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := parseFast(data)
	for _, depth := range []int{DefaultLimits().MaxDepth, 3} {
		v, vok := parseFastValue(data, depth)
		if !vok {
			continue
		}
		if !ok {
			t.Fatalf("the fast path's value mode accepted a document its node mode rejects:\n%s", data)
		}
		c := converter{lim: Limits{MaxDepth: depth}}
		want, wok := c.value(fast.Content[0], 1, false)
		if !wok || len(c.findings) > 0 {
			t.Fatalf("the fast path's value mode accepted a document with findings %v (max depth %d):\n%s", c.findings, depth, data)
		}
		if !sameValue(v, want) {
			t.Fatalf("the fast path's value mode gives %#v, the converter %#v:\n%s", v, want, data)
		}
	}
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

// sameValue is reflect.DeepEqual with NaN equal to itself.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || x != x && y != y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, has := y[k]
			if !has || !sameValue(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
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
		if _, ok := parseFastValue([]byte(podgen.Pod(i, false)), DefaultLimits().MaxDepth); !ok {
			t.Errorf("the fast path's value mode gave up on generated pod %d", i)
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
	// What the converter reports, which the value mode must give up on: ambiguous values and
	// keys, duplicate keys (block and flow), deep nesting.
	f.Add([]byte("a: yes\nb: 0755\nc: 1_000\nd: 12:30\n"))
	f.Add([]byte("on: x\n0x10: y\nnull: z\n"))
	f.Add([]byte("a: 1\nb: {c: 2, c: 3}\na: 4\n"))
	f.Add([]byte("a:\n  b:\n    c:\n      d: [[[e]]]\n"))
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
