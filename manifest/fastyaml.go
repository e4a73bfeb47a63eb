package manifest

import (
	"bytes"
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

// fastItem is what the fast path makes of one YAML node: the node itself, or (with values) its
// JSON value.
type fastItem struct {
	n *yaml.Node
	v any
}

// fastParser walks the content lines of one document.
type fastParser struct {
	// values makes the parser build the document's JSON value directly, as the converter would
	// from the node tree, without any node: it gives up on whatever the converter would report
	// (an ambiguous scalar, a duplicate key, nesting deeper than maxDepth when maxDepth > 0), so
	// a document it accepts has no decode finding.
	values   bool
	maxDepth int
	depth    int      // collections open
	keys     []string // with values: the keys of the mappings being parsed
	vals     []any    // with values: their values, and the items of the sequences being parsed

	lines []fastLine
	i     int         // the current line
	slab  []yaml.Node // nodes not yet handed out: one allocation for many nodes
	made  int         // nodes handed out
	// stack holds the children of the collections being parsed (a collection's children
	// are above those of its parents); ptrs is the room the finished collections' Content
	// slices are cut from, so each collection costs one exact slice, not a growing one.
	stack []*yaml.Node
	ptrs  []*yaml.Node
}

// children ends the collection whose children start at stack[base]: it returns them as one
// slice of exactly their number (nil for none) and pops them.
func (p *fastParser) children(base int) []*yaml.Node {
	k := len(p.stack) - base
	if k == 0 {
		return nil
	}
	if cap(p.ptrs)-len(p.ptrs) < k {
		p.ptrs = make([]*yaml.Node, 0, max(k, len(p.lines)*2+8))
	}
	at := len(p.ptrs)
	p.ptrs = append(p.ptrs, p.stack[base:]...)
	clear(p.stack[base:])
	p.stack = p.stack[:base]
	return p.ptrs[at:len(p.ptrs):len(p.ptrs)]
}

// open enters a collection; with values it gives up past the depth limit.
func (p *fastParser) open() bool {
	p.depth++
	return !p.values || p.maxDepth <= 0 || p.depth <= p.maxDepth
}

// push adds a collection's child: a node, or a value.
func (p *fastParser) push(it fastItem) {
	if p.values {
		p.vals = append(p.vals, it.v)
	} else {
		p.stack = append(p.stack, it.n)
	}
}

// pushKey adds a mapping key given as its plain text at line:col (0-based col); with values it
// gives up on a key the converter would report (ambiguous, MAN-008).
func (p *fastParser) pushKey(text string, line, col int) bool {
	if !p.values {
		key := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: text, Line: line, Column: col + 1})
		key.Tag = plainTag(key)
		p.stack = append(p.stack, key)
		return true
	}
	k, r := plainKeyString(text)
	if r.ambiguous != "" {
		return false
	}
	p.keys = append(p.keys, k)
	return true
}

// endSequence ends the sequence n (nil with values) whose items start at base (in vals, or
// stack).
func (p *fastParser) endSequence(n *yaml.Node, base int) fastItem {
	p.depth--
	if !p.values {
		n.Content = p.children(base)
		return fastItem{n: n}
	}
	out := make([]any, len(p.vals)-base)
	copy(out, p.vals[base:])
	clear(p.vals[base:])
	p.vals = p.vals[:base]
	return fastItem{v: out}
}

// endMapping ends the mapping n (nil with values) whose entries start at base (in keys and
// vals, or as key and value nodes in stack); with values it gives up on a duplicate key
// (MAN-005).
func (p *fastParser) endMapping(n *yaml.Node, base, vbase int) (fastItem, bool) {
	p.depth--
	if !p.values {
		n.Content = p.children(base)
		return fastItem{n: n}, true
	}
	keys, vals := p.keys[base:], p.vals[vbase:]
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		if m[k] = vals[i]; len(m) <= i {
			return fastItem{}, false // the key was there already: one lookup, not two
		}
	}
	clear(p.vals[vbase:])
	p.keys, p.vals = p.keys[:base], p.vals[:vbase]
	return fastItem{v: m}, true
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
	p := fastParser{stack: make([]*yaml.Node, 0, 64)}
	it, ok := p.parse(data)
	return it.n, ok
}

// parseFastValue returns the JSON value of the document in data, the value the converter makes
// of parseFast's tree, or false when data is outside the subset or its conversion has a finding
// (the caller then converts the tree, which reports it). maxDepth is Limits.MaxDepth.
func parseFastValue(data []byte, maxDepth int) (any, bool) {
	p := fastParser{values: true, maxDepth: maxDepth, keys: make([]string, 0, 32), vals: make([]any, 0, 32)}
	it, ok := p.parse(data)
	return it.v, ok
}

// parse parses the one document of data.
func (p *fastParser) parse(data []byte) (fastItem, bool) {
	p.lines = make([]fastLine, 0, bytes.Count(data, []byte{'\n'})+1)
	src := string(data) // one copy; every line, key and plain value is a slice of it
	num := 0
	for start := 0; start < len(src); {
		end := start
		for end < len(src) && src[end] != '\n' {
			c := src[end]
			if c < 0x20 || c > 0x7e {
				return fastItem{}, false // tabs, carriage returns, control and non-ASCII bytes
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
		return fastItem{}, false
	}
	docLine := 0
	first := p.lines[0]
	if strings.HasPrefix(first.text, "---") || strings.HasPrefix(first.text, "...") || first.text[0] == '%' {
		if first.text != "---" {
			return fastItem{}, false
		}
		docLine = first.num
		p.i++
		if p.i == len(p.lines) {
			return fastItem{}, false
		}
	}
	l := p.lines[p.i]
	if l.indent != 0 {
		return fastItem{}, false
	}
	if docLine == 0 {
		docLine = l.num
	}
	var doc *yaml.Node
	if !p.values {
		doc = p.node(yaml.Node{Kind: yaml.DocumentNode, Line: docLine, Column: 1})
	}
	it, ok := p.block(0)
	if !ok || p.i != len(p.lines) {
		return fastItem{}, false
	}
	if p.values {
		return it, true
	}
	doc.Content = []*yaml.Node{it.n}
	return fastItem{n: doc}, true
}

// block parses the block collection that starts on the current line at column indent (0-based).
func (p *fastParser) block(indent int) (fastItem, bool) {
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
func (p *fastParser) sequence(indent int) (fastItem, bool) {
	l := p.lines[p.i]
	var seq *yaml.Node
	base := len(p.vals)
	if !p.values {
		seq = p.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: l.num, Column: indent + 1})
		base = len(p.stack)
	}
	if !p.open() {
		return fastItem{}, false
	}
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
			return fastItem{}, false // the entry's node on the next lines, or an empty entry
		}
		var item fastItem
		var ok bool
		switch {
		case isSeqEntry(l.text, col):
			return fastItem{}, false // "- - a"
		case startsKey(l.text, col):
			// "- key: value": a block mapping whose keys are at the column of the first one.
			p.lines[p.i].indent = col
			item, ok = p.mapping(col)
		default:
			item, ok = p.inlineValue(indent)
		}
		if !ok {
			return fastItem{}, false
		}
		p.push(item)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return fastItem{}, false
	}
	return p.endSequence(seq, base), true
}

// mapping parses a block mapping whose keys start at column indent. The current line's indent
// may have been set to indent by a sequence entry holding the mapping's first key.
func (p *fastParser) mapping(indent int) (fastItem, bool) {
	l := p.lines[p.i]
	var m *yaml.Node
	base, vbase := len(p.keys), len(p.vals)
	if !p.values {
		m = p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: l.num, Column: indent + 1})
		base = len(p.stack)
	}
	if !p.open() {
		return fastItem{}, false
	}
	for p.i < len(p.lines) {
		l = p.lines[p.i]
		if l.indent != indent || isSeqEntry(l.text, indent) {
			break
		}
		end, ok := keyEnd(l.text, indent)
		if !ok || !p.pushKey(l.text[indent:end], l.num, indent) {
			return fastItem{}, false
		}
		col := end + 1
		for col < len(l.text) && l.text[col] == ' ' {
			col++
		}
		var val fastItem
		if col == len(l.text) || l.text[col] == '#' {
			// The value is the block collection on the next lines: more indented, or a
			// sequence at the key's own column.
			p.i++
			if p.i == len(p.lines) {
				return fastItem{}, false // an empty value (null)
			}
			next := p.lines[p.i]
			switch {
			case next.indent > indent:
				val, ok = p.block(next.indent)
			case next.indent == indent && isSeqEntry(next.text, indent):
				val, ok = p.sequence(indent)
			default:
				return fastItem{}, false
			}
		} else {
			val, ok = p.inlineValue(indent)
		}
		if !ok {
			return fastItem{}, false
		}
		p.push(val)
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return fastItem{}, false
	}
	return p.endMapping(m, base, vbase)
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
func (p *fastParser) inlineValue(owner int) (fastItem, bool) {
	l := p.lines[p.i]
	col := valueStart(l.text, owner)
	if col < 0 {
		return fastItem{}, false
	}
	var n fastItem
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
		return fastItem{}, false
	}
	p.i++
	if p.i < len(p.lines) && p.lines[p.i].indent > owner {
		return fastItem{}, false
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
func (p *fastParser) blockPlain(text string, col, line int) (fastItem, int, bool) {
	c := text[col]
	if isIndicator(c) {
		return fastItem{}, 0, false
	}
	if c == '?' || c == ':' || c == '-' && (col+1 == len(text) || text[col+1] == ' ') {
		return fastItem{}, 0, false
	}
	end := col
	for i := col; i < len(text); i++ {
		switch text[i] {
		case ' ':
			if i+1 < len(text) && text[i+1] == '#' {
				it, ok := p.plainNode(text[col:end], line, col)
				return it, i, ok
			}
			continue
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' {
				return fastItem{}, 0, false // "a: b" as a value, or a key: not for the fast path
			}
		}
		end = i + 1
	}
	it, ok := p.plainNode(text[col:end], line, col)
	return it, len(text), ok
}

// plainNode makes a plain scalar; with values it gives up on one the converter would report
// (ambiguous, MAN-008).
func (p *fastParser) plainNode(v string, line, col int) (fastItem, bool) {
	if p.values {
		r := resolvePlain(v)
		return fastItem{v: r.value}, r.ambiguous == ""
	}
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: line, Column: col + 1})
	n.Tag = plainTag(n)
	return fastItem{n: n}, true
}

// plainTag is n.ShortTag() for a plain scalar, without the library's resolution (a deferred
// function and a boxed value) for the two commonest cases: a first character that yaml.v3's
// resolver never looks further at (a string), and a decimal integer without a leading zero that
// fits in an int64 (an int). TestFastYAMLAgrees and FuzzFastYAML hold it to the library.
//
// It also resolves, as yaml.v3's resolver does, the words its table sends to a lookup (a first
// character among yYnNtTfFoO~: true, false and null in their three spellings, any other word a
// string), and a scalar starting with a digit or a sign that holds a character none of the
// resolver's number forms accepts ("500m", "64Mi", "-c"): those are strings, unless they start
// like a timestamp (four digits and a '-') or a signed infinity, which are left to the library.
func plainTag(n *yaml.Node) string {
	v := n.Value
	if v == "" {
		return n.ShortTag()
	}
	c := v[0]
	switch {
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "~", "null", "Null", "NULL":
			return "!!null"
		}
		return "!!str"
	case c >= '1' && c <= '9' && len(v) <= 18 && strings.Trim(v, "0123456789") == "":
		return "!!int"
	case c >= '0' && c <= '9' || c == '+' || c == '-':
		if !maybeNumber(v) {
			return "!!str"
		}
		return n.ShortTag()
	case c == '<' || c == '.':
		return n.ShortTag()
	}
	return "!!str"
}

// maybeNumber reports whether yaml.v3's resolver could read the plain scalar v, which starts
// with a digit or a sign, as anything but a string: v starts like a timestamp or like a signed
// infinity ("-.inf"), or every character of it is one its integer, float, binary, octal or
// hexadecimal forms accept.
func maybeNumber(v string) bool {
	if len(v) >= 2 && v[1] == '.' {
		return true
	}
	if (v[0] == '-' || v[0] == '+') && (len(v) == 1 || v[1] < '0' || v[1] > '9') {
		return false // every signed form has a digit (or the point of "-.inf") after the sign
	}
	if len(v) >= 5 && v[4] == '-' && strings.Trim(v[:4], "0123456789") == "" {
		return true
	}
	return strings.Trim(v, "0123456789+-_.xXoObBaAcCdDeEfF") == ""
}

// quoted scans a single-line single- or double-quoted scalar at col (double-quoted ones without
// escapes) and returns the index after its closing quote.
func (p *fastParser) quoted(text string, col, line int) (fastItem, int, bool) {
	v, style, end, ok := scanQuoted(text, col)
	if !ok {
		return fastItem{}, 0, false
	}
	if p.values {
		return fastItem{v: v}, end, true
	}
	n := p.node(yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: v, Line: line, Column: col + 1})
	return fastItem{n: n}, end, true
}

// scanQuoted is quoted's scan: the value and style of the quoted scalar at col, and the index
// after its closing quote.
func scanQuoted(text string, col int) (string, yaml.Style, int, bool) {
	if text[col] == '"' {
		for i := col + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				return "", 0, 0, false
			case '"':
				return text[col+1 : i], yaml.DoubleQuotedStyle, i + 1, true
			}
		}
		return "", 0, 0, false
	}
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
		v := text[start:i]
		if b.Len() > 0 {
			b.WriteString(v)
			v = b.String()
		}
		return v, yaml.SingleQuotedStyle, i + 1, true
	}
	return "", 0, 0, false
}

// maxFlowDepth bounds nested flow collections on the fast path (the decoder's own nesting limit
// applies to the tree afterwards either way).
const maxFlowDepth = 16

// flowCollection parses a flow sequence or mapping that opens and closes on this line.
func (p *fastParser) flowCollection(text string, col, line, depth int) (fastItem, int, bool) {
	if depth >= maxFlowDepth {
		return fastItem{}, 0, false
	}
	open := text[col]
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	// base is where the collection's children start (keys for a mapping, with values), vbase
	// where a mapping's values start (with values).
	var n *yaml.Node
	base, vbase := len(p.keys), len(p.vals)
	if open == '[' {
		base = vbase
	}
	if !p.values {
		n = p.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: line, Column: col + 1})
		if open == '[' {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		}
		base = len(p.stack)
	}
	if !p.open() {
		return fastItem{}, 0, false
	}
	finish := func() (fastItem, bool) {
		if open == '[' {
			return p.endSequence(n, base), true
		}
		return p.endMapping(n, base, vbase)
	}
	i := skipSpaces(text, col+1)
	if i < len(text) && text[i] == closer {
		it, ok := finish()
		return it, i + 1, ok
	}
	for {
		if open == '{' {
			end, ok := flowKeyEnd(text, i)
			if !ok || !p.pushKey(text[i:end], line, i) {
				return fastItem{}, 0, false
			}
			i = skipSpaces(text, end+1)
		}
		item, end, ok := p.flowItem(text, i, line, depth)
		if !ok {
			return fastItem{}, 0, false
		}
		p.push(item)
		i = skipSpaces(text, end)
		if i == len(text) {
			return fastItem{}, 0, false
		}
		switch text[i] {
		case closer:
			it, ok := finish()
			return it, i + 1, ok
		case ',':
			i = skipSpaces(text, i+1)
			if i == len(text) || text[i] == closer || text[i] == ',' {
				return fastItem{}, 0, false
			}
		default:
			return fastItem{}, 0, false
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
func (p *fastParser) flowItem(text string, i, line, depth int) (fastItem, int, bool) {
	if i >= len(text) {
		return fastItem{}, 0, false
	}
	switch text[i] {
	case '[', '{':
		return p.flowCollection(text, i, line, depth+1)
	case '"', '\'':
		return p.quoted(text, i, line)
	}
	c := text[i]
	if isIndicator(c) || c == '?' || c == ':' {
		return fastItem{}, 0, false
	}
	if c == '-' && (i+1 == len(text) || strings.IndexByte(" ,[]{}", text[i+1]) >= 0) {
		return fastItem{}, 0, false
	}
	end := i
	for j := i; j < len(text); j++ {
		switch text[j] {
		case ',', ']', '}':
			it, ok := p.plainNode(text[i:end], line, i)
			return it, j, ok
		case ':', '#', '[', '{', '?':
			return fastItem{}, 0, false
		case ' ':
			continue
		}
		end = j + 1
	}
	return fastItem{}, 0, false
}

func skipSpaces(text string, i int) int {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	return i
}
