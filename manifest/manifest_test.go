package manifest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/finding"
)

type pos struct {
	rule      string
	line, col int
}

func positions(fs []finding.Finding) []pos {
	out := make([]pos, 0, len(fs))
	for _, f := range fs {
		out = append(out, pos{f.Rule, f.Pos.Line, f.Pos.Column})
	}
	return out
}

func TestDecodeFindings(t *testing.T) {
	billion := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, l := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		billion += fmt.Sprintf("%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", l, l, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = l
	}
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70) + "\n"
	cases := []struct {
		name  string
		in    string
		lim   Limits
		docs  int
		finds []pos
	}{
		{"a clean two-document stream gives two documents and no findings",
			"a: 1\n---\nb: 2\n", DefaultLimits(), 2, nil},
		{"empty documents are skipped",
			"---\n# only a comment\n---\na: 1\n---\n", DefaultLimits(), 1, nil},
		{"a JSON object is one document",
			`{"apiVersion": "podspec.dev/v1alpha1", "kind": "Pod", "on": "x"}`, DefaultLimits(), 1, nil},
		{"a duplicate key is an error at the second key",
			"a: 1\nb: 2\na: 3\n", DefaultLimits(), 1, []pos{{"MAN-005", 3, 1}}},
		{"a duplicate key in JSON is an error too",
			"{\"a\": 1,\n \"a\": 2}", DefaultLimits(), 1, []pos{{"MAN-005", 2, 2}}},
		{"a syntax error is reported at its line and stops the stream",
			"a: 1\n---\nb: [1, 2\nc: 3\n", DefaultLimits(), 1, []pos{{"MAN-006", 4, 0}}},
		{"yes, on, 0755 and a sexagesimal value are warned about",
			"a: yes\nb: on\nc: 0755\nd: 1:30\ne: 'yes'\nf: true\n", DefaultLimits(), 1,
			[]pos{{"MAN-008", 1, 4}, {"MAN-008", 2, 4}, {"MAN-008", 3, 4}, {"MAN-008", 4, 4}}},
		{"on as a key is warned about",
			"on:\n  push: x\n", DefaultLimits(), 1, []pos{{"MAN-008", 1, 1}}},
		{"a billion-laughs document fails with a limit error",
			billion, DefaultLimits(), 0, []pos{{"MAN-007", 4, 36}}},
		{"nesting deeper than the limit fails",
			deep, DefaultLimits(), 0, []pos{{"MAN-007", 1, 65}}},
		{"a file over the size limit fails without a position",
			"a: 12345\n", Limits{MaxBytes: 4}, 0, []pos{{"MAN-007", 0, 0}}},
		{"more documents than the limit fail at the first extra document",
			"a: 1\n---\na: 2\n---\na: 3\n", Limits{MaxDocuments: 2}, 2, []pos{{"MAN-007", 4, 1}}},
		{"a bad indentation is reported at the offending line",
			"a:\n  b: 1\n c: 2\n", DefaultLimits(), 0, []pos{{"MAN-006", 3, 0}}},
		{"a stray list item is reported at its line",
			"x: 1\nz: 3\n- q\n", DefaultLimits(), 0, []pos{{"MAN-006", 3, 0}}},
		{"an unterminated quote is reported where it starts",
			"a: 1\nb: \"x\nc: 3\n", DefaultLimits(), 0, []pos{{"MAN-006", 2, 0}}},
		{"broken JSON is reported at its line",
			"{\"a\": 1\n\"b\": 2}", DefaultLimits(), 0, []pos{{"MAN-006", 2, 0}}},
		{"a syntax error on the first line is on line 1",
			"a: [1, 2]]\n", DefaultLimits(), 0, []pos{{"MAN-006", 1, 0}}},
		{"an unknown anchor is a syntax error",
			"a: *nope\n", DefaultLimits(), 0, []pos{{"MAN-006", 1, 4}}},
		{"a byte that is not UTF-8 is reported at its own line and column",
			"a: 1\nb: [\"caf\xc3\xa9\", \"\xff\"]\n", DefaultLimits(), 0, []pos{{"MAN-006", 2, 14}}},
		{"a truncated UTF-8 sequence is reported where it starts",
			"a: 1\n\nb: x\xe2\x80\n", DefaultLimits(), 0, []pos{{"MAN-006", 3, 5}}},
		{"a NUL byte is reported at its own line and column",
			"a: 1\nb: x\x00y\n", DefaultLimits(), 0, []pos{{"MAN-006", 2, 5}}},
		{"a control character in a later document is reported in that document",
			"a: 1\n---\nb: 2\nc: '\x01'\n", DefaultLimits(), 1, []pos{{"MAN-006", 4, 5}}},
		{"a NUL byte in JSON is reported where it is",
			"{\"a\": 1,\n  \"b\": \"\x00\"}", DefaultLimits(), 0, []pos{{"MAN-006", 2, 9}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			docs, fs := Decode("f.yaml", []byte(tc.in), tc.lim)
			if time.Since(start) > 2*time.Second {
				t.Errorf("decode took %v", time.Since(start))
			}
			if len(docs) != tc.docs {
				t.Errorf("got %d documents, want %d", len(docs), tc.docs)
			}
			got := positions(fs)
			if len(got) == 0 && len(tc.finds) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.finds) {
				t.Errorf("findings %v, want %v\n%v", got, tc.finds, fs)
			}
		})
	}
}

func TestScalarResolutionFollowsKubernetes(t *testing.T) {
	in := `s: hello
b1: yes
b2: "yes"
b3: off
i: 42
o: 0755
h: 0x1f
f: 1.5
nl: ~
u: 1_000
t: !!str 12
sx: 1:30
on: x
k: 'on'
`
	docs, _ := Decode("f.yaml", []byte(in), DefaultLimits())
	if len(docs) != 1 {
		t.Fatalf("got %d documents", len(docs))
	}
	want := map[string]any{
		"s": "hello", "b1": true, "b2": "yes", "b3": false, "i": int64(42), "o": int64(493),
		"h": int64(31), "f": 1.5, "nl": nil, "u": int64(1000), "t": "12", "sx": "1:30",
		"true": "x", "k": "on",
	}
	if !reflect.DeepEqual(docs[0].Value, want) {
		t.Errorf("value %#v\nwant  %#v", docs[0].Value, want)
	}
}

func TestMergeKeys(t *testing.T) {
	in := "base: &b {p: 1, q: 2}\nc:\n  <<: *b\n  q: 3\n"
	docs, fs := Decode("f.yaml", []byte(in), DefaultLimits())
	if len(fs) != 0 || len(docs) != 1 {
		t.Fatalf("docs %d findings %v", len(docs), fs)
	}
	c := docs[0].Value.(map[string]any)["c"]
	if !reflect.DeepEqual(c, map[string]any{"p": int64(1), "q": int64(3)}) {
		t.Errorf("merged %v", c)
	}
	if l, col := docs[0].Position([]string{"c", "p"}, false); l != 1 || col != 14 {
		t.Errorf("merged key p resolves to %d:%d, want 1:14 (in the anchor)", l, col)
	}
}

func TestPosition(t *testing.T) {
	in := `# leading comment
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: oci:x
  - name: b
on: x
`
	docs, _ := Decode("f.yaml", []byte(in), DefaultLimits())
	d := docs[0]
	cases := []struct {
		name      string
		tokens    []string
		onKey     bool
		line, col int
	}{
		{"a value resolves to the value", []string{"metadata", "name"}, false, 5, 9},
		{"a key resolves to the key when asked", []string{"metadata", "name"}, true, 5, 3},
		{"a list element resolves to its first key", []string{"spec", "containers", "1"}, false, 10, 5},
		{"a missing field resolves to its parent key", []string{"metadata", "labels"}, false, 4, 1},
		{"a field missing in a list element resolves to the element", []string{"spec", "containers", "1", "image"}, false, 10, 5},
		{"a missing top-level field resolves to the first key", []string{"status"}, false, 2, 1},
		{"an index out of range resolves to the list's key", []string{"spec", "containers", "7"}, false, 7, 3},
		{"the empty pointer is the document", nil, false, 2, 1},
		{"a key converted from on is found", []string{"true"}, true, 11, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, c := d.Position(tc.tokens, tc.onKey)
			if l != tc.line || c != tc.col {
				t.Errorf("got %d:%d, want %d:%d", l, c, tc.line, tc.col)
			}
		})
	}
}

func TestTypedDecode(t *testing.T) {
	in := `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: web, annotations: {a: b}}
spec:
  terminationGracePeriodSeconds: 12
  unknownField: 1
  containers: [{name: app, image: "oci:x"}]
---
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: 7}
spec: {containers: []}
---
apiVersion: podspec.dev/v1alpha1
kind: Notification
metadata: {name: nt}
spec: {notifier: reload, pods: [web]}
`
	docs, fs := Decode("f.yaml", []byte(in), DefaultLimits())
	if len(docs) != 3 || len(fs) != 0 {
		t.Fatalf("docs %d findings %v", len(docs), fs)
	}
	p, err := docs[0].Pod()
	if err != nil {
		t.Fatalf("pod: %v", err)
	}
	if p.Metadata.Name != "web" || *p.Spec.TerminationGracePeriodSeconds != 12 || p.Spec.Containers[0].Image != "oci:x" {
		t.Errorf("decoded %+v", p)
	}
	if docs[0].Name() != "web" || docs[0].Annotations()["a"] != "b" || docs[0].Kind != "Pod" {
		t.Errorf("name %q annotations %v kind %q", docs[0].Name(), docs[0].Annotations(), docs[0].Kind)
	}
	if _, err := docs[1].Pod(); err == nil {
		t.Errorf("a number as metadata.name decoded without error")
	}
	n, err := docs[2].Notification()
	if err != nil || n.Spec.Notifier != "reload" || n.Spec.Pods[0] != "web" {
		t.Errorf("notification %+v, %v", n, err)
	}
}

func TestExplicitTagsAndMergeLists(t *testing.T) {
	in := `a: !!str 010
b: !!int "12"
c: !!bool "yes"
d: !!float "1.5"
e: !!null ""
f: 0x10
g: 0b11
h: 1e3
base1: &b1 {p: 1}
base2: &b2 {p: 2, q: 2}
m:
  <<: [*b1, *b2]
`
	docs, fs := Decode("f.yaml", []byte(in), DefaultLimits())
	if len(docs) != 1 {
		t.Fatalf("docs %d", len(docs))
	}
	m := docs[0].Value.(map[string]any)
	want := map[string]any{"a": "010", "b": int64(12), "c": true, "d": 1.5, "e": nil, "f": int64(16), "g": int64(3), "h": 1000.0}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	if !reflect.DeepEqual(m["m"], map[string]any{"p": int64(1), "q": int64(2)}) {
		t.Errorf("merge list: earlier sources win: %v", m["m"])
	}
	if got := positions(fs); !reflect.DeepEqual(got, []pos{{"MAN-008", 7, 4}}) {
		t.Errorf("findings %v, want only the binary number warned about", got)
	}
}

func TestBadMergesAndKeys(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []pos
	}{
		{"a merge of a scalar is an error", "a: &s x\nb:\n  <<: *s\n", []pos{{"MAN-006", 3, 3}}},
		{"a sequence as a key is an error", "? [a, b]\n: c\n", []pos{{"MAN-006", 1, 3}}},
		{"a document that is a scalar decodes", "just text\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, fs := Decode("f.yaml", []byte(tc.in), DefaultLimits())
			if got := positions(fs); !(len(got) == 0 && len(tc.want) == 0) && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
