package logs

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// Line is one line of an instance's output: the records that make it up joined.
type Line struct {
	// Stamp is when its first part was read, in StampLayout.
	Stamp string
	// Text is the line's text, without its newline.
	Text []byte
	// Newline is false for the last line of an output that did not end with a newline (or a
	// line still being written).
	Newline bool
}

// Time is when the line's first part was read.
func (l Line) Time() time.Time {
	t, _ := time.Parse(StampLayout, l.Stamp)
	return t
}

// Filter selects lines: those read at or after Since (zero: all), then the last Tail of them
// (negative: all).
type Filter struct {
	Since time.Time
	Tail  int
}

// All selects every line.
var All = Filter{Tail: -1}

// Apply returns the lines of lines (oldest first) that f selects.
func (f Filter) Apply(lines []Line) []Line {
	i := 0
	if !f.Since.IsZero() {
		since := f.Since.UTC().Format(StampLayout)
		for i < len(lines) && lines[i].Stamp < since {
			i++
		}
	}
	lines = lines[i:]
	if f.Tail >= 0 && len(lines) > f.Tail {
		lines = lines[len(lines)-f.Tail:]
	}
	return lines
}

// Read returns the lines of the log at path, oldest first, that f selects, the last one even
// if its newline has not been written (yet). A log that does not exist has no lines.
func Read(path string, f Filter) ([]Line, error) {
	fo := NewFollower(path)
	defer fo.Close()
	lines, err := fo.All()
	if err != nil {
		return nil, err
	}
	if last := fo.Pending(); last != nil {
		lines = append(lines, *last)
	}
	return f.Apply(lines), nil
}

// Write writes lines as the program wrote them, or, with timestamps, each line after the time
// it was read (RFC 3339 with nanoseconds, UTC) and a space.
func Write(w io.Writer, lines []Line, timestamps bool) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		if timestamps {
			bw.WriteString(l.Stamp)
			bw.WriteByte(' ')
		}
		bw.Write(l.Text)
		if l.Newline {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// Follower reads a log as it grows: each Next returns the lines completed since the last one,
// from the segment it reads and every later one. A segment is whole once a later one exists
// (the writer never appends to it again), so nothing is lost or read twice across rotations;
// only segments dropped before the follower reached them are missed.
type Follower struct {
	path string
	f    *os.File
	seq  int // the segment f is, or -1 before the first
	off  int64
	rest []byte // an unfinished record of the segment being read
	part *Line  // records of a line whose F record has not come yet
	buf  []byte // the read buffer, kept from one read to the next
}

// NewFollower returns a follower of the log at path, at its beginning.
func NewFollower(path string) *Follower { return &Follower{path: path, seq: -1} }

// Close closes the segment it reads.
func (fo *Follower) Close() error {
	if fo.f != nil {
		return fo.f.Close()
	}
	return nil
}

// Pending returns the line whose end has not been written yet, if any.
func (fo *Follower) Pending() *Line { return fo.part }

// All returns every line completed since the last call: Next until the log has no more.
func (fo *Follower) All() ([]Line, error) {
	var out []Line
	for {
		got, err := fo.Next()
		if err != nil || len(got) == 0 {
			return out, err
		}
		out = append(out, got...)
	}
}

// Next returns the lines completed since the last call, oldest first; none when the log has
// not grown (or does not exist yet).
func (fo *Follower) Next() ([]Line, error) {
	var out []Line
	for {
		seqs, err := segments(fo.path)
		if err != nil {
			return out, err
		}
		next := -1 // the first segment after the one being read
		for _, n := range seqs {
			if n > fo.seq {
				next = n
				break
			}
		}
		if fo.f != nil {
			got, err := fo.readFile()
			if err != nil {
				return out, err
			}
			out = append(out, got...)
			if next < 0 {
				return out, nil // the segment being written: more may come
			}
			fo.f.Close()
			fo.f, fo.rest = nil, nil
		}
		if next < 0 {
			return out, nil
		}
		f, err := os.OpenFile(Segment(fo.path, next), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return out, err
		}
		// A segment dropped between the listing and the open is skipped.
		fo.f, fo.seq, fo.off = f, next, 0
	}
}

// readFile reads what the open file holds past the last read and returns the lines completed.
func (fo *Follower) readFile() ([]Line, error) {
	var out []Line
	if fo.buf == nil {
		fo.buf = make([]byte, 64<<10)
	}
	for {
		n, err := fo.f.ReadAt(fo.buf, fo.off)
		fo.off += int64(n)
		data := fo.buf[:n] // what is kept of it past this read is copied: rest, and each Line's text
		if len(fo.rest) > 0 {
			data = append(fo.rest, data...)
		}
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				break
			}
			stamp, r, derr := decode(data[:i])
			data = data[i+1:]
			if derr != nil {
				continue // a line that is not a record (a log written before records): skipped
			}
			if fo.part == nil {
				fo.part = &Line{Stamp: string(stamp)}
			}
			fo.part.Text = append(fo.part.Text, r.Text...)
			if !r.Partial {
				fo.part.Newline = true
				out = append(out, *fo.part)
				fo.part = nil
			}
		}
		fo.rest = append(fo.rest[:0:0], data...)
		if errors.Is(err, io.EOF) || n == 0 {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
