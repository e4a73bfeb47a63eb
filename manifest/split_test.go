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
	"testing/iotest"

	yaml "go.yaml.in/yaml/v3"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		lines []int // Line of each segment
	}{
		{"one document", "a: 1\nb: 2\n", []int{0}},
		{"a leading marker does not start a second document", "---\na: 1\n", []int{0}},
		{"comments and directives stay with the document that follows", "# c\n%YAML 1.2\n---\na: 1\n---\nb: 2\n", []int{0, 4}},
		{"markers with content on the same line", "--- {a: 1}\n--- |\n  text\n", []int{0, 1}},
		{"an indented marker inside a block scalar is content", "a: |\n  ---\n  x\n---\nb: 1\n", []int{0, 3}},
		{"a bare document after an end marker", "a: 1\n...\nb: 2\n", []int{0, 2}},
		{"an end marker followed by a marker", "a: 1\n...\n---\nb: 2\n", []int{0, 2}},
		{"CRLF line ends and no final newline", "a: 1\r\n---\r\nb: 2", []int{0, 1}},
		{"a marker followed by a comment is a marker", "a: 1\n--- # next\nb: 2\n", []int{0, 1}},
		{"a line that only starts with dashes is content", "a: 1\n----\n", []int{0}},
		{"JSON is one document", "{\n  \"a\": 1\n}\n", []int{0}},
		{"concatenated JSON objects are one document each", "{\n  \"a\": 1\n}\n{\n  \"b\": {\"c\": 2}\n}\n{\"d\": 3}\n", []int{0, 3, 6}},
		{"a brace at column 0 inside a JSON object's array is content", "{\"a\": [{\"b\": 1},\n{\"c\": 2}]}\n", []int{0}},
		{"a YAML flow mapping line after a block does not cut", "a: {b: 1}\n{c: 2}\n", []int{0}},
		{"empty input has no segments", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			segs, fs := Split("f", []byte(tc.in), DefaultLimits())
			if len(fs) != 0 {
				t.Fatalf("findings %v", fs)
			}
			var lines []int
			var joined strings.Builder
			for i, s := range segs {
				if s.Index != i {
					t.Errorf("segment %d has index %d", i, s.Index)
				}
				lines = append(lines, s.Line)
				joined.Write(s.Data)
			}
			if !reflect.DeepEqual(lines, tc.lines) {
				t.Errorf("segment lines %v, want %v", lines, tc.lines)
			}
			if joined.String() != tc.in {
				t.Errorf("segments do not cover the input exactly: %q", joined.String())
			}
		})
	}
}

// nodeDump lists every node's position and value, to compare two decodings.
func nodeDump(n *yaml.Node, out *[]string) {
	*out = append(*out, fmt.Sprintf("%d:%d %d %q", n.Line, n.Column, n.Kind, n.Value))
	for _, c := range n.Content {
		nodeDump(c, out)
	}
}

// Decoding segment by segment gives the same nodes at the same positions as decoding the
// whole stream with one YAML decoder.
func TestSegmentsDecodeLikeTheWholeStream(t *testing.T) {
	var streams [][]byte
	for _, dir := range []string{"../testdata/valid", "../testdata/invalid", "../examples"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		var all [][]byte
		for _, f := range files {
			if strings.Contains(f, "MAN-007") {
				continue // limit cases: their documents are not returned
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, data)
			all = append(all, data)
		}
		streams = append(streams, bytes.Join(all, []byte("\n---\n")))
	}
	for i, data := range streams {
		var want []string
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				want = nil // a stream with a syntax error: nothing to compare
				break
			}
			if len(n.Content) > 0 && !(n.Content[0].Kind == yaml.ScalarNode && n.Content[0].Value == "" && n.Content[0].Style == 0) {
				nodeDump(&n, &want)
			}
		}
		if want == nil {
			continue
		}
		var got []string
		segs, _ := Split("f", data, Limits{})
		for _, s := range segs {
			docs, fs := s.Decode(DefaultLimits())
			for _, f := range fs {
				if f.Rule == spec.MAN006 {
					t.Fatalf("stream %d: segment %d: %v", i, s.Index, f)
				}
			}
			for _, d := range docs {
				nodeDump(d.Root(), &got)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("stream %d: segment decoding differs from stream decoding (%d vs %d nodes)", i, len(got), len(want))
		}
	}
}

func TestASyntaxErrorLosesOnlyItsDocument(t *testing.T) {
	docs, fs := Decode("f.yaml", []byte("a: [1\n---\nb: 2\n---\nc: 'x\n---\nd: 4\n"), DefaultLimits())
	if len(docs) != 2 || docs[0].Index != 1 || docs[1].Index != 3 {
		t.Errorf("documents %d (want 1 and 3 decoded)", len(docs))
	}
	if got := positions(fs); !reflect.DeepEqual(got, []pos{{"MAN-006", 1, 0}, {"MAN-006", 5, 0}}) {
		t.Errorf("findings %v", got)
	}
}

// streamAll reads every segment and finding of a Stream over r.
func streamAll(t *testing.T, r io.Reader, lim Limits) ([]Segment, []finding.Finding) {
	t.Helper()
	s := NewStream("f", r, lim)
	var segs []Segment
	for {
		seg, ok := s.Next()
		if !ok {
			break
		}
		segs = append(segs, seg)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return segs, s.Findings()
}

// A Stream cuts the same segments, with the same findings, as Split of the whole input,
// whatever sizes the reads come in and however long the lines are.
func TestStreamCutsLikeSplit(t *testing.T) {
	inputs := []string{
		"a: 1\nb: 2\n", "---\na: 1\n", "# c\n%YAML 1.2\n---\na: 1\n---\nb: 2\n", "--- {a: 1}\n--- |\n  text\n",
		"a: |\n  ---\n  x\n---\nb: 1\n", "a: 1\n...\nb: 2\n", "a: 1\n...\n---\nb: 2\n", "a: 1\r\n---\r\nb: 2",
		"a: 1\n--- # next\nb: 2\n", "a: 1\n----\n", "{\n  \"a\": 1\n}\n", "{\"a\": 1}\n{\n\"b\": 2\n}\n", "", "\n", "a: 1\n---", "---\n---\n",
		"# only a comment", "a: 1\n---\n# comment\n---\nb: 2\n...\n",
		"a: " + strings.Repeat("x", 3*streamBuffer) + "\n---\nb: " + strings.Repeat("y", streamBuffer) + "\n---\nc: 1",
	}
	for _, dir := range []string{"../testdata/valid", "../testdata/invalid", "../examples"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		var all []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, string(data))
			all = append(all, string(data))
		}
		inputs = append(inputs, strings.Join(all, "\n---\n"))
	}
	limits := []Limits{{}, {MaxDocuments: 1}, {MaxDocuments: 2}, {MaxDocuments: 3}}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for i, in := range inputs {
		for _, lim := range limits {
			want, wantF := Split("f", []byte(in), lim)
			for name, r := range readers {
				got, gotF := streamAll(t, r(in), lim)
				if len(got) != len(want) {
					t.Fatalf("input %d, %+v, %s reads: %d segments, Split cut %d", i, lim, name, len(got), len(want))
				}
				for j := range got {
					if got[j].Index != want[j].Index || got[j].Line != want[j].Line || !bytes.Equal(got[j].Data, want[j].Data) {
						t.Errorf("input %d, %+v, %s reads: segment %d differs: %d/%d, %d/%d lines", i, lim, name, j, got[j].Index, want[j].Index, got[j].Line, want[j].Line)
					}
				}
				if !reflect.DeepEqual(gotF, wantF) {
					t.Errorf("input %d, %+v, %s reads: findings %v, Split's %v", i, lim, name, gotF, wantF)
				}
			}
		}
	}
}

// A stream past the size limit ends before the document that crosses it, with a MAN-007
// finding that points at that document, and without reading it whole.
func TestStreamStopsAtTheSizeLimit(t *testing.T) {
	in := "a: 1\n---\nb: 2\n---\nc: " + strings.Repeat("x", 1<<20) + "\n"
	segs, fs := streamAll(t, strings.NewReader(in), Limits{MaxBytes: 64 << 10})
	if len(segs) != 2 || string(segs[1].Data) != "---\nb: 2\n" {
		t.Fatalf("segments %+v", segs)
	}
	if len(fs) != 1 || fs[0].Rule != spec.MAN007 || fs[0].Document != 2 || fs[0].Pos.Line != 4 {
		t.Errorf("findings %+v", fs)
	}
}

// A read error ends the stream and is reported; the segments before it were returned.
func TestStreamReportsReadErrors(t *testing.T) {
	boom := errors.New("boom")
	s := NewStream("f", io.MultiReader(strings.NewReader("a: 1\n---\nb: 2\n"), iotest.ErrReader(boom)), Limits{})
	seg, ok := s.Next()
	if !ok || string(seg.Data) != "a: 1\n" {
		t.Fatalf("first segment %q %v", seg.Data, ok)
	}
	if _, ok := s.Next(); ok || !errors.Is(s.Err(), boom) {
		t.Errorf("after the error: %v %v", ok, s.Err())
	}
}

// A syntax error's message names lines of the stream, not of its document's segment.
func TestSyntaxMessageLinesAreStreamLines(t *testing.T) {
	_, fs := Decode("f", []byte("a: 1\n---\nb: [1,\n  2\nc: 3\n"), DefaultLimits())
	if len(fs) != 1 || fs[0].Pos.Line != 5 || !strings.HasSuffix(fs[0].Message, "(in the flow collection opened on line 3)") {
		t.Errorf("findings %+v", fs)
	}
}
