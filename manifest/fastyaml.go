package manifest

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// This file holds a fast path for the YAML that pod manifests are made of: block mappings and
// sequences, single-line plain and quoted scalars, and single-line flow collections, in printable
// ASCII. parseFast builds the same yaml.Node tree as go.yaml.in/yaml/v3 (kinds, styles, tags,
// values, lines and columns; comments are skipped, and nothing in this package reads them), and
// gives up on anything else: anchors, aliases, tags, block scalars, multi-line scalars or flow
// collections, document markers other than a leading "---", tabs, non-ASCII bytes, empty values,
// and every construct it is not sure about. The caller then parses the document with yaml.v3, so
// a give-up costs time, never correctness. FuzzFastYAML checks the two parsers agree on every
// input the fast path accepts, and that it accepts nothing yaml.v3 rejects.
//
// The YAML library spends about half the validator's time building these trees (tokens, events,
// then nodes, with an allocation at every step); the fast path builds the nodes directly.

// fastLine is one line holding content (blank and comment-only lines are dropped).
type fastLine struct {
	num    int    // 1-based line number
	indent int    // leading spaces
	text   string // the whole line, without its newline
}

// fastParser walks the content lines of one document.
type fastParser struct {
	lines []fastLine
	i     int         // the current line
	slab  []yaml.Node // nodes not yet handed out: one allocation for many nodes
	made  int         // nodes handed out
}

// node returns a new node with the given fields, from the slab.
func (p *fastParser) node(n yaml.Node) *yaml.Node {
	if len(p.slab) == 0 {
		// Manifests have about three nodes a line; chunks stay small objects (under 32 KiB).
		p.slab = make([]yaml.Node, min(max(len(p.lines)*3+8-p.made, 16), 200))
	}
	out := &p.slab[0]
	*out = n
	p.slab = p.slab[1:]
	p.made++
	return out
}

// parseFast returns the document node of data, or false when data is outside the subset.
func parseFast(data []byte) (*yaml.Node, bool) {
	p := fastParser{lines: make([]fastLine, 0, 64)}
	src := string(data) // one copy; every line, key and plain value is a slice of it
	num := 0
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && src[end] != '\n' {
			c := src[end]
			if c < 0x20 || c > 0x7e {
				return nil, false // tabs, carriage returns, control and non-ASCII bytes
			}
			end++
		}
		num++
		text := src[start:end]
		start = end + 1
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		if indent == len(text) || text[indent] == '#' {
			continue
		}
		p.lines = append(p.lines, fastLine{num: num, indent: indent, text: text})
	}
	if len(p.lines) == 0 {
		return nil, false
	}
	doc := p.node(yaml.Node{Kind: yaml.DocumentNode})
	first := p.lines[0]
	if strings.HasPrefix(first.text, "---") || strings.HasPrefix(first.text, "...") || first.text[0] == '%' {
		if first.text != "---" {
			return nil, false
		}
		doc.Line, doc.Column = first.num, 1
		p.i++
		if p.i == len(p.lines) {
			return nil, false
		}
	}
	l := p.lines[p.i]
	if l.indent != 0 {
		return nil, false
	}
	if doc.Line == 0 {
		doc.Line, doc.Column = l.num, 1
	}
	n, ok := p.block(0)
	if !ok || p.i != len(p.lines) {
		return nil, false
	}
	doc.Content = []*yaml.Node{n}
	return doc, true
}

// block parses the block collection that starts on the current line at column indent (0-based).
func (p *fastParser) block(indent int) (*yaml.Node, bool) {
	l := p.lines[p.i]
	if isSeqEntry(l.text, indent) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

// isSeqEntry says whether text holds a block sequence entry ("- " or a lone "-") at col.
func isSeqEntry(text string, col int) bool {
	return col < len(text) && text[col] == '-' && (col+1 == len(text) || text[col+1] == ' ')
}

// sequence parses a block sequence whose entries start at column indent.
func (p *fastParser) sequence(indent int) (*yaml.Node, bool) {
	l := p.lines[p.i]
	seq := p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: l.num, Column: indent + 1})
	for p.i < len(p.lines) {
		l = p.lines[p.i]
		if l.indent != indent || !isSeqEntry(l.text, indent) {
			break
		}
		col := indent + 1
		for col < len(l.text) && l.text[col] == ' ' {
			col++
		}
		if col == len(l.text) || l.text[col] == '#' {
			return nil, false // the entry's node on the next lines, or an empty entry
		}
		var item *yaml.Node
		var ok bool
		switch {
		case isSeqEntry(l.text, col):
			return nil, false // "- - a"
		case startsKey(l.text, col):
			// "- key: value": a block mapping whose keys are at the column of the first one.
			p.lines[p.i].indent = col
			item, ok = p.mapping(col)
		default:
			item, ok = p.inlineValue(indent)
		}
		if !ok {
			return nil, false
		}
		seq.Content = append(seq.Content, item)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	return seq, true
}

// mapping parses a block mapping whose keys start at column indent. The current line's indent
// may have been set to indent by a sequence entry holding the mapping's first key.
func (p *fastParser) mapping(indent int) (*yaml.Node, bool) {
	l := p.lines[p.i]
	m := p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: l.num, Column: indent + 1})
	for p.i < len(p.lines) {
		l = p.lines[p.i]
		if l.indent != indent || isSeqEntry(l.text, indent) {
			break
		}
		end, ok := keyEnd(l.text, indent)
		if !ok {
			return nil, false
		}
		key := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: l.text[indent:end], Line: l.num, Column: indent + 1})
		key.Tag = key.ShortTag()
		col := end + 1
		for col < len(l.text) && l.text[col] == ' ' {
			col++
		}
		var val *yaml.Node
		if col == len(l.text) || l.text[col] == '#' {
			// The value is the block collection on the next lines: more indented, or a
			// sequence at the key's own column.
			p.i++
			if p.i == len(p.lines) {
				return nil, false // an empty value (null)
			}
			next := p.lines[p.i]
			switch {
			case next.indent > indent:
				val, ok = p.block(next.indent)
			case next.indent == indent && isSeqEntry(next.text, indent):
				val, ok = p.sequence(indent)
			default:
				return nil, false
			}
		} else {
			val, ok = p.inlineValue(indent)
		}
		if !ok {
			return nil, false
		}
		m.Content = append(m.Content, key, val)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, false
	}
	return m, true
}

// startsKey says whether text holds "key:" at col, the key plain and simple.
func startsKey(text string, col int) bool {
	_, ok := keyEnd(text, col)
	return ok
}

// keyEnd returns the index of the ':' ending a simple plain key that starts at col: letters,
// digits and "._/-" (not first), followed by ':' and a space or the end of the line.
func keyEnd(text string, col int) (int, bool) {
	i := col
	for i < len(text) {
		c := text[i]
		if isKeyChar(c) && (i > col || c != '-' && c != '.') {
			i++
			continue
		}
		break
	}
	if i == col || i-col > maxSimpleKey || i == len(text) || text[i] != ':' {
		return 0, false
	}
	if i+1 < len(text) && text[i+1] != ' ' {
		return 0, false
	}
	return i, true
}

// maxSimpleKey is below the YAML library's limit on the length of an implicit key (1024).
const maxSimpleKey = 1000

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '/' || c == '-'
}

// inlineValue parses the value that starts at the current column of the current line (after a
// key's ':' or a sequence entry's '-') and ends the line; owner is the column of the key or the
// '-', and no later line may be more indented than it (that would continue the value).
func (p *fastParser) inlineValue(owner int) (*yaml.Node, bool) {
	l := p.lines[p.i]
	col := valueStart(l.text, owner)
	if col < 0 {
		return nil, false
	}
	var n *yaml.Node
	var end int
	var ok bool
	switch l.text[col] {
	case '[', '{':
		n, end, ok = p.flowCollection(l.text, col, l.num, 0)
	case '"', '\'':
		n, end, ok = p.quoted(l.text, col, l.num)
	default:
		n, end, ok = p.blockPlain(l.text, col, l.num)
	}
	if !ok || !restIsComment(l.text, end) {
		return nil, false
	}
	p.i++
	if p.i < len(p.lines) && p.lines[p.i].indent > owner {
		return nil, false
	}
	return n, true
}

// valueStart finds the value after the ':' or '-' that follows owner; -1 when none.
func valueStart(text string, owner int) int {
	i := owner
	if text[i] == '-' {
		i++
	} else {
		for i < len(text) && text[i] != ':' {
			i++
		}
		i++
	}
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i >= len(text) {
		return -1
	}
	return i
}

// restIsComment says whether text[i:] is spaces, optionally followed by a comment.
func restIsComment(text string, i int) bool {
	if i < len(text) && text[i] != ' ' {
		return false
	}
	for i < len(text) && text[i] == ' ' {
		i++
	}
	return i == len(text) || text[i] == '#'
}

// isIndicator reports the characters that cannot start a plain scalar (YAML 1.2, 7.3.3);
// '-', '?' and ':' are handled by the callers.
func isIndicator(c byte) bool {
	return strings.IndexByte(",[]{}#&*!|>'\"%@`", c) >= 0
}

// blockPlain scans a single-line plain scalar in block context at col.
func (p *fastParser) blockPlain(text string, col, line int) (*yaml.Node, int, bool) {
	c := text[col]
	if isIndicator(c) {
		return nil, 0, false
	}
	if c == '?' || c == ':' || c == '-' && (col+1 == len(text) || text[col+1] == ' ') {
		return nil, 0, false
	}
	end := col
	for i := col; i < len(text); i++ {
		switch text[i] {
		case ' ':
			if i+1 < len(text) && text[i+1] == '#' {
				return p.plainNode(text[col:end], line, col), i, true
			}
			continue
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' {
				return nil, 0, false // "a: b" as a value, or a key: not for the fast path
			}
		}
		end = i + 1
	}
	return p.plainNode(text[col:end], line, col), len(text), true
}

func (p *fastParser) plainNode(v string, line, col int) *yaml.Node {
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: line, Column: col + 1})
	n.Tag = plainTag(n)
	return n
}

// plainTag is n.ShortTag() for a plain scalar, without the library's resolution (a deferred
// function and a boxed value) for the two commonest cases: a first character that yaml.v3's
// resolver never looks further at (a string), and a decimal integer without a leading zero that
// fits in an int64 (an int). TestFastYAMLAgrees and FuzzFastYAML hold it to the library.
func plainTag(n *yaml.Node) string {
	v := n.Value
	if v == "" {
		return n.ShortTag()
	}
	if c := v[0]; !strings.ContainsRune("+-0123456789yYnNtTfFoO~<.", rune(c)) {
		return "!!str"
	}
	if v[0] >= '1' && v[0] <= '9' && len(v) <= 18 && strings.Trim(v, "0123456789") == "" {
		return "!!int"
	}
	return n.ShortTag()
}

// quoted scans a single-line single- or double-quoted scalar at col (double-quoted ones without
// escapes) and returns the index after its closing quote.
func (p *fastParser) quoted(text string, col, line int) (*yaml.Node, int, bool) {
	q := text[col]
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Line: line, Column: col + 1})
	if q == '"' {
		n.Style = yaml.DoubleQuotedStyle
		for i := col + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				return nil, 0, false
			case '"':
				n.Value = text[col+1 : i]
				return n, i + 1, true
			}
		}
		return nil, 0, false
	}
	n.Style = yaml.SingleQuotedStyle
	var b strings.Builder
	start := col + 1
	for i := col + 1; i < len(text); i++ {
		if text[i] != '\'' {
			continue
		}
		if i+1 < len(text) && text[i+1] == '\'' {
			b.WriteString(text[start : i+1])
			i++
			start = i + 1
			continue
		}
		if b.Len() == 0 {
			n.Value = text[start:i]
		} else {
			b.WriteString(text[start:i])
			n.Value = b.String()
		}
		return n, i + 1, true
	}
	return nil, 0, false
}

// maxFlowDepth bounds nested flow collections on the fast path (the decoder's own nesting limit
// applies to the tree afterwards either way).
const maxFlowDepth = 16

// flowCollection parses a flow sequence or mapping that opens and closes on this line.
func (p *fastParser) flowCollection(text string, col, line, depth int) (*yaml.Node, int, bool) {
	if depth >= maxFlowDepth {
		return nil, 0, false
	}
	open := text[col]
	n := p.node(yaml.Node{Style: yaml.FlowStyle, Line: line, Column: col + 1})
	closer := byte(']')
	if open == '[' {
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
	} else {
		n.Kind, n.Tag, closer = yaml.MappingNode, "!!map", '}'
	}
	i := skipSpaces(text, col+1)
	if i < len(text) && text[i] == closer {
		return n, i + 1, true
	}
	for {
		if open == '{' {
			end, ok := flowKeyEnd(text, i)
			if !ok {
				return nil, 0, false
			}
			k := p.plainNode(text[i:end], line, i)
			n.Content = append(n.Content, k)
			i = skipSpaces(text, end+1)
		}
		item, end, ok := p.flowItem(text, i, line, depth)
		if !ok {
			return nil, 0, false
		}
		n.Content = append(n.Content, item)
		i = skipSpaces(text, end)
		if i == len(text) {
			return nil, 0, false
		}
		switch text[i] {
		case closer:
			return n, i + 1, true
		case ',':
			i = skipSpaces(text, i+1)
			if i == len(text) || text[i] == closer || text[i] == ',' {
				return nil, 0, false
			}
		default:
			return nil, 0, false
		}
	}
}

// flowKeyEnd returns the index of the ':' after a simple key in a flow mapping; the ':' must be
// followed by a space.
func flowKeyEnd(text string, i int) (int, bool) {
	end, ok := keyEnd(text, i)
	if !ok || end+1 >= len(text) {
		return 0, false
	}
	return end, true
}

// flowItem parses one value inside a flow collection.
func (p *fastParser) flowItem(text string, i, line, depth int) (*yaml.Node, int, bool) {
	if i >= len(text) {
		return nil, 0, false
	}
	switch text[i] {
	case '[', '{':
		return p.flowCollection(text, i, line, depth+1)
	case '"', '\'':
		return p.quoted(text, i, line)
	}
	c := text[i]
	if isIndicator(c) || c == '?' || c == ':' {
		return nil, 0, false
	}
	if c == '-' && (i+1 == len(text) || strings.IndexByte(" ,[]{}", text[i+1]) >= 0) {
		return nil, 0, false
	}
	end := i
	for j := i; j < len(text); j++ {
		switch text[j] {
		case ',', ']', '}':
			return p.plainNode(text[i:end], line, i), j, true
		case ':', '#', '[', '{', '?':
			return nil, 0, false
		case ' ':
			continue
		}
		end = j + 1
	}
	return nil, 0, false
}

func skipSpaces(text string, i int) int {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	return i
}
