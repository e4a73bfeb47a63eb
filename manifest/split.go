package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
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
	i := 0 // bytes.TrimLeft(line, " \t\r") without building its set of bytes for every line
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
		i++
	}
	if i == len(line) || line[i] == '#' {
		return lineBlank, false
	}
	return lineContent, true
}

// cutter decides where documents begin, one line at a time.
type cutter struct {
	content, afterEnd bool // the current document has content; a "..." ended it
	// json is set when the current document's first content line starts with '{' at column 0,
	// closed when its last content line ends with '}': a '{' at column 0 then starts the next
	// of a stream of concatenated JSON objects (as kubectl writes and reads them), where YAML,
	// which allows one node per document, could read no further.
	json, closed bool
}

// line records the next line (with its "\n", if any) and reports whether a new document
// starts at it.
func (c *cutter) line(l []byte) bool {
	kind, hasContent := classify(l)
	opens := kind == lineContent && len(l) > 0 && l[0] == '{'
	cut := c.content && (kind == lineDocStart || (c.afterEnd && (kind == lineContent || kind == lineDirective)) ||
		(opens && c.json && c.closed))
	if cut {
		c.content = false
	}
	if hasContent && !c.content {
		c.json = opens
	}
	if kind == lineContent {
		t := bytes.TrimRight(l, " \t\r\n")
		c.closed = len(t) > 0 && t[len(t)-1] == '}'
	}
	c.content = c.content || hasContent
	c.afterEnd = kind == lineDocEnd || (c.afterEnd && kind == lineBlank)
	return cut
}

// Split cuts a YAML or JSON stream into one segment per document. A new document starts at a
// "---" line (at column 0) once the current one has content, and at the first content or
// directive line after a "..." end marker; this is where YAML itself ends documents (a marker
// at column 0 ends even a block scalar). In a stream of concatenated JSON objects, each object
// that starts with '{' at column 0 after a line ending with '}' is a document of its own. Inputs over the size limit, or with more documents
// than the document limit, yield MAN-007 findings (and no segments past the limit).
//
// Split holds every segment of data at once; Stream reads and cuts one segment at a time,
// with the same segments and findings.
func Split(file string, data []byte, lim Limits) ([]Segment, []finding.Finding) {
	if lim.MaxBytes > 0 && int64(len(data)) > lim.MaxBytes {
		return nil, []finding.Finding{{
			Rule: spec.MAN007, Severity: spec.SeverityOf(spec.MAN007), Engine: engineDecode,
			Message: fmt.Sprintf("input is %d bytes, over the limit of %d bytes", len(data), lim.MaxBytes),
			Pos:     finding.Position{File: file},
		}}
	}
	var segs []Segment
	var c cutter
	segStart, segLine := 0, 0
	line := 0
	for pos := 0; pos < len(data); line++ {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		if c.line(data[pos:next]) {
			if lim.MaxDocuments > 0 && len(segs) == lim.MaxDocuments {
				return segs, []finding.Finding{tooManyDocuments(file, lim, segLine)}
			}
			segs = append(segs, Segment{File: file, Index: len(segs), Line: segLine, Data: data[segStart:pos]})
			segStart, segLine = pos, line
		}
		pos = next
	}
	if segStart < len(data) {
		if lim.MaxDocuments > 0 && len(segs) == lim.MaxDocuments {
			return segs, []finding.Finding{tooManyDocuments(file, lim, segLine)}
		}
		segs = append(segs, Segment{File: file, Index: len(segs), Line: segLine, Data: data[segStart:]})
	}
	return segs, nil
}

// tooManyDocuments is the MAN-007 finding for the first document past the limit, which starts
// after line lines of the stream.
func tooManyDocuments(file string, lim Limits, line int) finding.Finding {
	return finding.Finding{
		Rule: spec.MAN007, Severity: spec.SeverityOf(spec.MAN007), Engine: engineDecode, Document: lim.MaxDocuments,
		Message: fmt.Sprintf("more than %d documents in one file", lim.MaxDocuments),
		Pos:     finding.Position{File: file, Line: line + 1, Column: 1},
	}
}

// Stream reads a YAML or JSON stream and cuts it into the same segments as Split, one at a
// time: it holds only the segment being read (and its reader's buffer), so a stream of any
// length is validated in memory bounded by its largest document. Each segment's Data is its
// own copy.
//
// A stream longer than the size limit ends, before the document that crosses the limit, with
// a MAN-007 finding; so does one with more documents than the document limit (the same finding
// as Split's).
type Stream struct {
	file     string
	lim      Limits
	r        *bufio.Reader
	c        cutter
	cur      []byte // the segment being read
	curLine  int    // lines before cur
	line     int    // lines read
	read     int64  // bytes read
	index    int    // segments returned
	eof      bool   // the reader is at its end
	done     bool
	err      error
	findings []finding.Finding
}

// streamBuffer is the size of a Stream's read buffer.
const streamBuffer = 64 << 10

// NewStream returns a Stream that reads r; file names it in segments and findings.
func NewStream(file string, r io.Reader, lim Limits) *Stream {
	return &Stream{file: file, lim: lim, r: bufio.NewReaderSize(r, streamBuffer)}
}

// Next returns the next segment, or false at the end of the stream, at a limit (Findings),
// or on a read error (Err).
func (s *Stream) Next() (Segment, bool) {
	for !s.done {
		if s.eof {
			s.done = true
			if len(s.cur) == 0 {
				return Segment{}, false
			}
			return s.emit(len(s.cur), s.line)
		}
		start := len(s.cur)
		for {
			chunk, err := s.r.ReadSlice('\n')
			s.cur = append(s.cur, chunk...)
			s.read += int64(len(chunk))
			if s.lim.MaxBytes > 0 && s.read > s.lim.MaxBytes {
				s.done, s.cur = true, nil
				s.findings = append(s.findings, finding.Finding{
					Rule: spec.MAN007, Severity: spec.SeverityOf(spec.MAN007), Engine: engineDecode, Document: s.index,
					Message: fmt.Sprintf("input is over the limit of %d bytes (the documents before this one were read)", s.lim.MaxBytes),
					Pos:     finding.Position{File: s.file, Line: s.curLine + 1, Column: 1},
				})
				return Segment{}, false
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) {
				s.eof = true
			} else if err != nil {
				s.done, s.err, s.cur = true, err, nil
				return Segment{}, false
			}
			break
		}
		if len(s.cur) > start {
			cut := s.c.line(s.cur[start:])
			s.line++
			if cut {
				return s.emit(start, s.line-1)
			}
		}
	}
	return Segment{}, false
}

// emit returns cur[:at] as the next segment and keeps cur[at:] (the line that begins the next
// segment, line lines into the stream).
func (s *Stream) emit(at, line int) (Segment, bool) {
	if s.lim.MaxDocuments > 0 && s.index == s.lim.MaxDocuments {
		s.done = true
		s.cur = nil
		s.findings = append(s.findings, tooManyDocuments(s.file, s.lim, s.curLine))
		return Segment{}, false
	}
	seg := Segment{File: s.file, Index: s.index, Line: s.curLine, Data: s.cur[:at:at]}
	if rest := s.cur[at:]; s.done {
		s.cur = nil
	} else {
		s.cur = make([]byte, len(rest), max(at+at/4, 4096)) // room for a document like this one
		copy(s.cur, rest)
	}
	s.index++
	s.curLine = line
	return seg, true
}

// Findings returns the limit findings of a stream whose Next has returned false.
func (s *Stream) Findings() []finding.Finding { return s.findings }

// Err returns the read error that ended the stream, if any.
func (s *Stream) Err() error { return s.err }
