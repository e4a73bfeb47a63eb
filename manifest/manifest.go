// Package manifest turns the bytes of a YAML or JSON stream into documents: one parse per
// document into a position-preserving go.yaml.in/yaml/v3 node tree, then a direct conversion of
// that tree into a JSON-compatible value that every engine (JSON Schema, CUE, typed decode for
// the semantic checks) reads. A document in the subset of YAML that manifests are written in,
// with nothing to report, is parsed straight into its value instead (fastyaml.go), and its
// node tree only when a position is asked for.
//
// Decoding is strict and bounded: duplicate keys, syntax errors, inputs over a size, depth,
// alias-expansion or document-count limit, and YAML 1.1 plain scalars that YAML 1.2 reads
// differently (yes, on, 0755, 1:30) come back as positioned findings. Scalars resolve the way
// sigs.k8s.io/yaml (Kubernetes) resolves them. The package never validates the API itself.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml2 "go.yaml.in/yaml/v2"
	yaml "go.yaml.in/yaml/v3"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
)

const (
	engineDecode    = "decode"
	defaultMaxBytes = 4 << 20
)

// Limits bound what Decode accepts; a zero field means no limit.
type Limits struct {
	// MaxBytes is the largest input accepted, in bytes.
	MaxBytes int64
	// MaxDepth is the deepest nesting of mappings and sequences.
	MaxDepth int
	// MaxAliasExpansion is the most nodes a document may visit through aliases while it is
	// converted (each node reached through an alias counts once per visit), which bounds
	// "billion laughs" documents.
	MaxAliasExpansion int
	// MaxDocuments is the most documents one stream may hold.
	MaxDocuments int
}

// DefaultLimits are the limits podspec validate uses unless told otherwise: 4 MiB per file,
// nesting depth 64, 10,000 nodes through aliases, 10,000 documents per file.
func DefaultLimits() Limits {
	return Limits{MaxBytes: defaultMaxBytes, MaxDepth: 64, MaxAliasExpansion: 10000, MaxDocuments: 10000}
}

// Document is one YAML document (or the one JSON value) of a stream.
type Document struct {
	// File names the stream the document came from, as given to Decode.
	File string
	// Index is the 0-based index of the document in the stream, counting empty documents.
	Index int
	// APIVersion and Kind are copied from the document's top level when they are strings.
	APIVersion, Kind string
	// Value is the JSON-compatible tree: map[string]any, []any, string, int64, float64, bool, nil.
	Value any

	// root is the document node (Root). A document the fast path took is decoded straight into
	// its Value; its nodes are parsed from src (the segment, srcLine lines into the stream)
	// only when a position is asked for, which most documents, having no finding, never need.
	root     *yaml.Node
	rootOnce sync.Once
	src      []byte
	srcLine  int
}

// Root returns the document node; its positions are 1-based and absolute in the stream.
func (d *Document) Root() *yaml.Node {
	d.rootOnce.Do(func() {
		if d.root != nil || d.src == nil {
			return
		}
		// The fast path's node mode takes every document its value mode takes (FuzzFastYAML).
		if n, ok := parseFast(d.src); ok {
			shiftLines(n, d.srcLine)
			d.root = n
		}
	})
	return d.root
}

// Name returns metadata.name when the document has one.
func (d *Document) Name() string {
	m, _ := d.Value.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	s, _ := md["name"].(string)
	return s
}

// Annotations returns metadata.annotations entries whose values are strings.
func (d *Document) Annotations() map[string]string {
	m, _ := d.Value.(map[string]any)
	md, _ := m["metadata"].(map[string]any)
	an, _ := md["annotations"].(map[string]any)
	if len(an) == 0 {
		return nil
	}
	out := make(map[string]string, len(an))
	for k, v := range an {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

var reLine = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// Decode splits a YAML or JSON stream into documents. Problems found while decoding (syntax,
// duplicate keys, limits, YAML 1.1 ambiguous scalars) come back as positioned findings. A
// document that hit a limit is not returned; a document with duplicate keys is (the last value
// wins, as in Kubernetes), so later checks still see it. A syntax error loses the rest of its
// document only: decoding resumes at the next document marker.
//
// Decode is Split followed by Segment.Decode on every segment; callers that want to hold one
// document at a time, or decode documents in parallel, call those instead.
func Decode(file string, data []byte, lim Limits) ([]*Document, []finding.Finding) {
	segs, fs := Split(file, data, lim)
	var docs []*Document
	for _, s := range segs {
		d, f := s.Decode(lim)
		docs = append(docs, d...)
		fs = append(fs, f...)
	}
	return docs, fs
}

// Decode decodes the document of one segment (a segment holds one document, or none when it
// is only comments). Positions are absolute in the stream the segment was cut from.
func (s Segment) Decode(lim Limits) ([]*Document, []finding.Finding) {
	// The common shape of a manifest, straight into its value: no node tree, no conversion (and
	// so no decode finding; anything the converter would report makes it give up).
	if v, ok := parseFastValue(s.Data, lim.MaxDepth); ok {
		d := s.document(v)
		d.src, d.srcLine = s.Data, s.Line
		return []*Document{d}, nil
	}
	var docs []*Document
	var fs []finding.Finding
	var dec *yaml.Decoder
	fast, fastOK := parseFast(s.Data) // the common shape of a manifest, without the YAML library
	for {
		var root *yaml.Node
		var err error
		switch {
		case fastOK:
			root, fastOK = fast, false
		case fast != nil:
			err = io.EOF // the fast path took the segment's one document
		default:
			if dec == nil {
				dec = yaml.NewDecoder(bytes.NewReader(s.Data))
			}
			root = new(yaml.Node)
			err = decodeNode(dec, root)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fs = append(fs, syntaxFinding(s.File, s.Data, s.Index, s.Line, err))
			break
		}
		shiftLines(root, s.Line)
		if len(root.Content) == 0 {
			continue
		}
		top := root.Content[0]
		if top.Kind == yaml.ScalarNode && top.Style&quotedStyles == 0 && top.Value == "" {
			continue // an empty document ("---" alone, or comments only)
		}
		c := converter{lim: lim, file: s.File, doc: s.Index}
		v, ok := c.value(top, 1, false)
		fs = append(fs, c.findings...)
		if !ok {
			continue
		}
		d := s.document(v)
		d.root = root
		docs = append(docs, d)
	}
	return docs, fs
}

// document is the document of the segment whose value is v.
func (s Segment) document(v any) *Document {
	d := &Document{File: s.File, Index: s.Index, Value: v}
	if m, isMap := v.(map[string]any); isMap {
		d.APIVersion, _ = m["apiVersion"].(string)
		d.Kind, _ = m["kind"].(string)
	}
	return d
}

// shiftLines makes a segment's node positions absolute in its stream.
func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

// decodeNode reads the next document; the YAML library reports problems by panicking
// internally, and any panic that escapes it is turned into an error here.
func decodeNode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return dec.Decode(n)
}

// syntaxFinding turns a YAML library error about data, which starts after offset lines of its
// stream, into a MAN-006 (or MAN-007) finding positioned in the stream.
func syntaxFinding(file string, data []byte, idx, offset int, err error) finding.Finding {
	f := segmentSyntaxFinding(file, data, idx, offset, err)
	if f.Pos.Line > 0 {
		f.Pos.Line += offset
	}
	return f
}

func segmentSyntaxFinding(file string, data []byte, idx, offset int, err error) finding.Finding {
	f := finding.Finding{
		Rule: spec.MAN006, Severity: spec.SeverityOf(spec.MAN006), Engine: engineDecode, Document: idx,
		Message: "not well-formed YAML or JSON: " + strings.TrimPrefix(err.Error(), "yaml: "),
		Pos:     finding.Position{File: file},
	}
	if m := reAnchor.FindStringSubmatch(err.Error()); m != nil {
		// Point at the first use of the unknown anchor.
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			f.Pos.Line, f.Pos.Column = lineCol(data, i)
		}
		return f
	}
	if off, ok := badCharacter(data); ok && readerProblems[strings.TrimPrefix(err.Error(), "yaml: ")] {
		// The reader's problems carry no line; point at the offending byte.
		f.Pos.Line, f.Pos.Column = lineCol(data, off)
		return f
	}
	line, problem := 0, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := reLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		problem = m[2]
	}
	f.Message = "not well-formed YAML or JSON: " + problem
	if !parserProblems[problem] {
		// A scanner error: the library's line is 1-based (the start of the construct being
		// scanned, or the problem itself); none means the first line.
		f.Pos.Line = max(line, 1)
		return f
	}
	// A parser error: yaml.v3 reports the 0-based line of the enclosing construct. The v2
	// parser of the same family reports the 0-based line of the offending token instead.
	context := line + 1
	if l, ok := problemLine(data, problem); ok {
		f.Pos.Line = l + 1
	} else {
		f.Pos.Line = context
	}
	if last := lastLine(data); f.Pos.Line > last {
		f.Pos.Line = last
	}
	if strings.HasPrefix(problem, "did not find expected ',' or") && context < f.Pos.Line {
		f.Message += fmt.Sprintf(" (in the flow collection opened on line %d)", context+offset)
	}
	return f
}

// parserProblems are the problems the YAML parser (as opposed to the scanner) reports.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected <stream-start>": true, "did not find expected key": true,
	"did not find expected node content": true, "found duplicate %TAG directive": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found undefined tag handle": true,
}

// readerProblems are the problems the YAML reader reports about the bytes of a stream, before
// any token: an invalid UTF-8 sequence or a character YAML does not allow (NUL, other control
// characters). yaml.v3 gives them no line.
var readerProblems = map[string]bool{
	"invalid leading UTF-8 octet": true, "incomplete UTF-8 octet sequence": true,
	"invalid trailing UTF-8 octet": true, "invalid length of a UTF-8 sequence": true,
	"invalid Unicode character": true, "control characters are not allowed": true,
}

// badCharacter returns the offset of the first byte of data that is not part of a character
// YAML allows in a UTF-8 stream: an invalid UTF-8 sequence, or a character outside tab, line
// feed, carriage return, U+0020-U+007E, U+0085, U+00A0-U+D7FF, U+E000-U+FFFD and
// U+10000-U+10FFFF (YAML 1.2, 5.1). A byte order mark opening the stream is allowed; a stream
// in UTF-16 or UTF-32 is not examined.
func badCharacter(data []byte) (int, bool) {
	if len(data) >= 2 && (data[0] == 0xfe && data[1] == 0xff || data[0] == 0xff && data[1] == 0xfe) {
		return 0, false
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return i, true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return i, true
		case r == 0xfeff && i == 0, r == 0x85, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000:
		default:
			return i, true
		}
		i += size
	}
	return 0, false
}

var reAnchor = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// problemLine re-parses data with the yaml.v2 parser (only on the error path) to get the
// 0-based line of the token where problem was found.
func problemLine(data []byte, problem string) (line int, ok bool) {
	defer func() {
		if recover() != nil {
			line, ok = 0, false
		}
	}()
	dec := yaml2.NewDecoder(bytes.NewReader(data))
	for {
		var skip struct{}
		err := dec.Decode(&skip)
		if err == nil {
			continue
		}
		var te *yaml2.TypeError
		if errors.As(err, &te) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return 0, false
		}
		msg := err.Error()
		if m := reLine.FindStringSubmatch(msg); m != nil {
			if m[2] != problem {
				return 0, false
			}
			l, _ := strconv.Atoi(m[1])
			return l, true
		}
		return 0, msg == "yaml: "+problem
	}
}

// lastLine is the number of the last line of data that has any text.
func lastLine(data []byte) int {
	n := bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n")) + 1
	return n
}

// lineCol converts a byte offset to a 1-based line and column (columns count runes).
func lineCol(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(data[start:off])
}

// converter turns one document's node tree into a JSON-compatible value, collecting findings.
type converter struct {
	lim      Limits
	file     string
	doc      int
	findings []finding.Finding
	// aliased counts nodes visited through aliases.
	aliased int
	// expanding is the alias being expanded at the top (the one the author wrote outside any
	// anchor); limit errors point at it.
	expanding *yaml.Node
	// path is the field path of the node being converted, one element per level: a mapping
	// key (index -1) or a sequence index; add writes it out, only for a finding.
	path []pathElem
}

// pathElem is one level of converter.path.
type pathElem struct {
	key   string
	index int
}

func (c *converter) add(rule string, n *yaml.Node, msg string) {
	c.findings = append(c.findings, finding.Finding{
		Rule: rule, Severity: spec.SeverityOf(rule), Engine: engineDecode, Document: c.doc, Message: msg,
		Path: c.pathString(),
		Pos:  finding.Position{File: c.file, Line: n.Line, Column: n.Column},
	})
}

// pathString writes the path: ".name" for a mapping key, "[key]" for a key such as
// "podspec.dev/ignore" that is not an identifier (as validation/field writes map keys), "[i]"
// for a sequence index; without the leading '.'.
func (c *converter) pathString() string {
	var b strings.Builder
	for _, e := range c.path {
		if e.index >= 0 {
			b.WriteString("[" + strconv.Itoa(e.index) + "]")
		} else {
			b.WriteString(pathKey(e.key))
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

// pathKey is the path element of a mapping key: .name, or [key] for a key that is not an
// identifier.
func pathKey(key string) string {
	for i, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "[" + key + "]"
		}
	}
	if key == "" {
		return "[]"
	}
	return "." + key
}

// value converts n; ok is false once a limit is hit (the finding is already recorded).
func (c *converter) value(n *yaml.Node, depth int, viaAlias bool) (v any, ok bool) {
	if viaAlias {
		c.aliased++
		if c.lim.MaxAliasExpansion > 0 && c.aliased > c.lim.MaxAliasExpansion {
			at := n
			if c.expanding != nil {
				at = c.expanding
			}
			c.add(spec.MAN007, at, fmt.Sprintf(
				"alias expansion exceeds %d nodes (a \"billion laughs\" document?)", c.lim.MaxAliasExpansion))
			return nil, false
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		r := resolveScalar(n)
		if r.ambiguous != "" && !viaAlias {
			c.add(spec.MAN008, n, fmt.Sprintf("ambiguous plain scalar %q: %s; quote it", n.Value, r.ambiguous))
		}
		return r.value, true
	case yaml.AliasNode:
		if n.Alias == nil {
			c.add(spec.MAN006, n, "alias to an unknown anchor")
			return nil, false
		}
		if !viaAlias {
			c.expanding = n
			defer func() { c.expanding = nil }()
		}
		return c.value(n.Alias, depth, true)
	case yaml.MappingNode:
		if !c.deep(n, depth) {
			return nil, false
		}
		return c.mapping(n, depth, viaAlias)
	case yaml.SequenceNode:
		if !c.deep(n, depth) {
			return nil, false
		}
		out := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			c.path = append(c.path, pathElem{index: i})
			ev, ok := c.value(e, depth+1, viaAlias)
			c.path = c.path[:len(c.path)-1]
			if !ok {
				return nil, false
			}
			out = append(out, ev)
		}
		return out, true
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, true
		}
		return c.value(n.Content[0], depth, viaAlias)
	}
	c.add(spec.MAN006, n, "unsupported YAML node")
	return nil, false
}

func (c *converter) deep(n *yaml.Node, depth int) bool {
	if c.lim.MaxDepth > 0 && depth > c.lim.MaxDepth {
		c.add(spec.MAN007, n, fmt.Sprintf("nesting deeper than %d levels", c.lim.MaxDepth))
		return false
	}
	return true
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style&quotedStyles == 0 &&
		(k.Style&yaml.TaggedStyle == 0 || k.Tag == "!!merge")
}

func (c *converter) mapping(n *yaml.Node, depth int, viaAlias bool) (any, bool) {
	m := make(map[string]any, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			merges = append(merges, vn)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			c.add(spec.MAN006, k, "mapping keys must be scalars")
			continue
		}
		key, r := keyString(k)
		c.path = append(c.path, pathElem{key: key, index: -1})
		if r.ambiguous != "" && !viaAlias {
			c.add(spec.MAN008, k, fmt.Sprintf(
				"ambiguous plain key %q becomes %q: %s; quote it", k.Value, key, r.ambiguous))
		}
		if _, dup := m[key]; dup && !viaAlias {
			first := firstKey(n, key, i)
			c.add(spec.MAN005, k, fmt.Sprintf(
				"mapping key %q already defined at line %d, column %d", key, first.Line, first.Column))
		}
		v, ok := c.value(vn, depth+1, viaAlias)
		c.path = c.path[:len(c.path)-1]
		if !ok {
			return nil, false
		}
		m[key] = v
	}
	for _, mn := range merges {
		if !c.merge(m, n, mn, depth, viaAlias) {
			return nil, false
		}
	}
	return m, true
}

// merge applies a YAML merge key (<<: *base or <<: [*a, *b]): keys already set win, and
// earlier sources win over later ones.
func (c *converter) merge(m map[string]any, owner, src *yaml.Node, depth int, viaAlias bool) bool {
	var sources []*yaml.Node
	if src.Kind == yaml.SequenceNode {
		sources = src.Content
	} else {
		sources = []*yaml.Node{src}
	}
	for _, s := range sources {
		through := viaAlias
		for s.Kind == yaml.AliasNode && s.Alias != nil {
			s = s.Alias
			through = true
		}
		if s.Kind != yaml.MappingNode {
			c.add(spec.MAN006, owner, "merge key (<<) must name a mapping or a list of mappings")
			continue
		}
		v, ok := c.value(s, depth, through)
		if !ok {
			return false
		}
		for k, val := range v.(map[string]any) {
			if _, set := m[k]; !set {
				m[k] = val
			}
		}
	}
	return true
}

// firstKey finds the first key node before index end that converts to key.
func firstKey(n *yaml.Node, key string, end int) *yaml.Node {
	for i := 0; i < end; i += 2 {
		if s, _ := keyString(n.Content[i]); s == key {
			return n.Content[i]
		}
	}
	return n
}
