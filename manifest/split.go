package manifest

import (
	"bytes"
	"fmt"

	"podspec.dev/podspec/finding"
)

// Segment is the part of a stream that holds one document: from its "---" marker (or the start
// of the stream) to the next document's. Segments are cut without parsing, so a stream's
// documents can be decoded one at a time, or in parallel, with the same result as decoding the
// whole stream.
type Segment struct {
	// File names the stream.
	File string
	// Index is the 0-based index of the document in the stream.
	Index int
	// Line is the number of lines in the stream before the segment.
	Line int
	// Data are the segment's bytes (a sub-slice of the stream).
	Data []byte
}

// lineKind classifies a line for splitting.
type lineKind int

const (
	lineContent   lineKind = iota
	lineBlank              // empty, blanks only, or a comment
	lineDocStart           // "---" marker
	lineDocEnd             // "..." marker
	lineDirective          // "%YAML", "%TAG"
)

func classify(line []byte) (lineKind, bool) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	marker := func(m string) bool {
		return bytes.HasPrefix(line, []byte(m)) && (len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')
	}
	switch {
	case marker("---"):
		// A marker may be followed by content on the same line ("--- |", "--- {a: 1}").
		rest := bytes.TrimSpace(line[3:])
		return lineDocStart, len(rest) > 0 && rest[0] != '#'
	case marker("..."):
		return lineDocEnd, false
	case len(line) > 0 && line[0] == '%':
		return lineDirective, false
	}
	t := bytes.TrimLeft(line, " \t\r")
	if len(t) == 0 || t[0] == '#' {
		return lineBlank, false
	}
	return lineContent, true
}

// Split cuts a YAML or JSON stream into one segment per document. A new document starts at a
// "---" line (at column 0) once the current one has content, and at the first content or
// directive line after a "..." end marker; this is where YAML itself ends documents (a marker
// at column 0 ends even a block scalar). Inputs over the size limit, or with more documents
// than the document limit, yield MAN-007 findings (and no segments past the limit).
func Split(file string, data []byte, lim Limits) ([]Segment, []finding.Finding) {
	if lim.MaxBytes > 0 && int64(len(data)) > lim.MaxBytes {
		return nil, []finding.Finding{{
			Rule: RuleLimit, Severity: finding.Error, Engine: engineDecode,
			Message: fmt.Sprintf("input is %d bytes, over the limit of %d bytes", len(data), lim.MaxBytes),
			Pos:     finding.Position{File: file},
		}}
	}
	var segs []Segment
	segStart, segLine := 0, 0
	content, afterEnd := false, false
	cut := func(at, line int) {
		segs = append(segs, Segment{File: file, Index: len(segs), Line: segLine, Data: data[segStart:at]})
		segStart, segLine = at, line
		content = false
	}
	line := 0
	for pos := 0; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		kind, hasContent := classify(data[pos:next])
		switch {
		case kind == lineDocStart && content:
			cut(pos, line)
		case afterEnd && content && (kind == lineContent || kind == lineDirective):
			cut(pos, line)
		}
		content = content || hasContent
		afterEnd = kind == lineDocEnd || (afterEnd && kind == lineBlank)
		pos = next
	}
	if segStart < len(data) {
		cut(len(data), line)
	}
	if lim.MaxDocuments > 0 && len(segs) > lim.MaxDocuments {
		extra := segs[lim.MaxDocuments]
		return segs[:lim.MaxDocuments], []finding.Finding{{
			Rule: RuleLimit, Severity: finding.Error, Engine: engineDecode, Document: extra.Index,
			Message: fmt.Sprintf("more than %d documents in one file", lim.MaxDocuments),
			Pos:     finding.Position{File: file, Line: extra.Line + 1, Column: 1},
		}}
	}
	return segs, nil
}
