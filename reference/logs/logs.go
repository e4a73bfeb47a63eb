// Package logs is the reference runtime's container log: what an instance writes to its
// standard output and standard error, copied from a pipe into files bounded in size, one
// record per line with the time it was read, and read back whole, from a time on, its last N
// lines, or followed as it grows, across rotations.
//
// A log is a series of files, its segments: the instance's log path (segment 0), then PATH.1,
// PATH.2, … The writer appends to the highest; when it would grow past Limits.MaxSize it starts
// the next one and drops the lowest beyond Limits.MaxFiles. Nothing is ever renamed, so a
// reader knows a segment is whole once a higher one exists. Each record is one line of text:
//
//	2026-12-07T04:50:00.123456789Z F the line as the program wrote it
//
// The time is UTC with nine fractional digits always (StampLayout), so that times compare as
// text.
// F ends a line the program ended with a newline; P is a part of a longer line, or the end of
// the output when it did not end with a newline. A record never holds more than MaxRecord bytes
// of text.
package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits bound one instance's log: the current file rotates before it grows past MaxSize
// bytes, and at most MaxFiles files, the current one included, are kept.
type Limits struct {
	MaxSize  int64 `json:"maxSize,omitempty"`
	MaxFiles int   `json:"maxFiles,omitempty"`
}

// DefaultLimits are Kubernetes' kubelet defaults (containerLogMaxSize 10Mi,
// containerLogMaxFiles 5).
var DefaultLimits = Limits{MaxSize: 10 << 20, MaxFiles: 5}

// MinSize is the smallest MaxSize allowed: a record, time stamp included, fits in it.
const MinSize = 2 * MaxRecord

// OrDefault returns l with each unset field taken from DefaultLimits.
func (l Limits) OrDefault() Limits {
	if l.MaxSize == 0 {
		l.MaxSize = DefaultLimits.MaxSize
	}
	if l.MaxFiles == 0 {
		l.MaxFiles = DefaultLimits.MaxFiles
	}
	return l
}

// Validate says what is wrong with explicit limits.
func (l Limits) Validate() error {
	if l.MaxSize != 0 && l.MaxSize < MinSize {
		return fmt.Errorf("log size limit %d bytes: at least %d", l.MaxSize, MinSize)
	}
	if l.MaxFiles < 0 {
		return fmt.Errorf("log file count %d: at least 1", l.MaxFiles)
	}
	return nil
}

// MaxRecord is the most text one record holds; a longer line is cut into P records.
const MaxRecord = 16 << 10

// StampLayout is the layout of a record's time: RFC 3339, UTC, nanoseconds, fixed width.
const StampLayout = "2006-01-02T15:04:05.000000000Z"

// Record is one record of a log.
type Record struct {
	// Time is when the runtime read the text from the instance's output.
	Time time.Time
	// Text is the text, without the newline that ended it.
	Text []byte
	// Partial is true when no newline ended this text in the output: the line goes on in the
	// next record, or the output ended without a newline.
	Partial bool
}

// encodedLen is the length of r's line in a log file: what encode appends.
func (r Record) encodedLen() int64 { return int64(len(StampLayout) + len(" F \n") + len(r.Text)) }

// encode appends r as one line of a log file.
func (r Record) encode(b []byte) []byte {
	b = r.Time.UTC().AppendFormat(b, StampLayout)
	if r.Partial {
		b = append(b, " P "...)
	} else {
		b = append(b, " F "...)
	}
	b = append(b, r.Text...)
	return append(b, '\n')
}

// errCorrupt is the error of a line that is not a record.
var errCorrupt = errors.New("not a log record")

// decode parses one line of a log file, without its newline, into its time stamp (checked for
// its shape, not parsed: readers compare stamps as text) and its record.
func decode(line []byte) (stamp []byte, r Record, err error) {
	n := len(StampLayout)
	if len(line) < n+3 || line[n] != ' ' || line[n+2] != ' ' || (line[n+1] != 'F' && line[n+1] != 'P') ||
		line[4] != '-' || line[10] != 'T' || line[19] != '.' || line[n-1] != 'Z' {
		return nil, Record{}, errCorrupt
	}
	return line[:n], Record{Text: line[n+3:], Partial: line[n+1] == 'P'}, nil
}

// Segment is the name of segment seq of the log at path: path itself for 0, path.SEQ after.
func Segment(path string, seq int) string {
	if seq == 0 {
		return path
	}
	return path + "." + strconv.Itoa(seq)
}

// segments returns the sequence numbers of the segments of the log at path that exist, lowest
// (oldest) first.
func segments(path string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	base := filepath.Base(path)
	var out []int
	for _, e := range ents {
		name := e.Name()
		if name == base {
			out = append(out, 0)
			continue
		}
		if rest, ok := strings.CutPrefix(name, base+"."); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > 0 && strconv.Itoa(n) == rest {
				out = append(out, n)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// Paths returns the logs in dir, each by its path (its segment 0's, whether that segment still
// exists or was dropped by the rotation), sorted. Files of other names are not logs.
func Paths(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			if n, err := strconv.Atoi(name[i+1:]); err == nil && n > 0 && strconv.Itoa(n) == name[i+1:] {
				name = name[:i] // a later segment: the log is the name before it
			}
		}
		if strings.HasSuffix(name, ".log") {
			seen[filepath.Join(dir, name)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// Files returns the segments of the log at path that exist, oldest first.
func Files(path string) []string {
	seqs, _ := segments(path)
	out := make([]string, len(seqs))
	for i, n := range seqs {
		out[i] = Segment(path, n)
	}
	return out
}

// Writer appends records to a log and rotates it within its limits. It is not safe for
// concurrent use: one copier owns it. Records are buffered until Flush.
type Writer struct {
	path string
	lim  Limits
	seqs []int // the segments that exist, oldest first; the writer appends to the last
	f    *os.File
	size int64  // of the last segment, what is buffered included
	buf  []byte // records not written yet
	// Lost counts the bytes of records that could not be written (a full disk): dropped, so
	// that the log goes on once there is room again.
	Lost int64
}

// OpenWriter opens the log at path for appending (a log that exists goes on, as after a
// supervisor's restart), with limits lim (unset fields: DefaultLimits).
func OpenWriter(path string, lim Limits) (*Writer, error) {
	w := &Writer{path: path, lim: lim.OrDefault()}
	seqs, err := segments(path)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	if w.seqs = seqs; len(seqs) == 0 {
		w.seqs = []int{0}
	}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, w.drop(w.lim.MaxFiles)
}

// open opens the last segment for appending.
func (w *Writer) open() error {
	f, err := os.OpenFile(Segment(w.path, w.seqs[len(w.seqs)-1]), os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log file: %w", err)
	}
	w.f, w.size = f, fi.Size()
	return nil
}

// Write buffers r (whose text must not hold a newline nor exceed MaxRecord), first rotating
// when the last segment would grow past the size limit.
func (w *Writer) Write(r Record) error {
	n := r.encodedLen()
	if w.size > 0 && w.size+n > w.lim.MaxSize {
		if err := w.rotate(); err != nil {
			return err
		}
	}
	w.buf = r.encode(w.buf)
	w.size += n
	return nil
}

// Flush writes the buffered records. What cannot be written is dropped and counted in Lost,
// and the error returned: the next records are written once there is room.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	n, err := w.f.Write(w.buf)
	if err != nil {
		w.Lost += int64(len(w.buf) - n)
		w.size -= int64(len(w.buf) - n)
	}
	w.buf = w.buf[:0]
	return err
}

// rotate writes what is buffered, drops the oldest segments so that the next one keeps the log
// within the file limit, and starts the next segment. The next segment exists only once the last
// one is whole, which tells a reader it is.
func (w *Writer) rotate() error {
	ferr := w.Flush() // what cannot be written is counted lost; the next segment may have room
	if err := w.f.Close(); err != nil {
		return err
	}
	next := w.seqs[len(w.seqs)-1] + 1
	// The oldest segments go first, so that the log never holds more than MaxFiles files.
	if err := w.drop(w.lim.MaxFiles - 1); err != nil {
		return err
	}
	w.seqs = append(w.seqs, next)
	if err := w.open(); err != nil {
		return err
	}
	return ferr
}

// drop removes the oldest segments until at most keep remain.
func (w *Writer) drop(keep int) error {
	for len(w.seqs) > max(keep, 0) {
		if err := os.Remove(Segment(w.path, w.seqs[0])); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		w.seqs = w.seqs[1:]
	}
	return nil
}

// Close writes what is buffered and closes the last segment.
func (w *Writer) Close() error {
	err := w.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// IdleFlush is how long an unfinished line waits for more output before the copier writes it
// as a P record, so that a prompt or a progress line shows without its newline.
const IdleFlush = 200 * time.Millisecond

// deadliner is a reader whose reads can be bounded in time (a pipe opened by os.OpenFile).
type deadliner interface {
	SetReadDeadline(time.Time) error
}

// Copy reads r until it ends (io.EOF: every writer of the pipe closed it), cuts what it reads
// into records stamped with the time it was read, and writes them to w, flushing after every
// read. An unfinished line is held until its newline comes, until it reaches MaxRecord, or, when
// r can be bounded in time, until IdleFlush passes without more output. Records that cannot be
// written are dropped (w.Lost) and reading goes on, so that the writer of r never blocks on a
// log that cannot grow; the first such error is returned at the end.
func Copy(r io.Reader, w *Writer) error {
	buf := make([]byte, 64<<10)
	var line []byte // an unfinished line
	var lineTime time.Time
	var werr error
	keep := func(err error) {
		if werr == nil {
			werr = err
		}
	}
	dl, _ := r.(deadliner)
	emit := func(text []byte, partial bool, t time.Time) {
		for len(text) > MaxRecord {
			keep(w.Write(Record{Time: t, Text: text[:MaxRecord], Partial: true}))
			text = text[MaxRecord:]
		}
		keep(w.Write(Record{Time: t, Text: text, Partial: partial}))
	}
	for {
		if dl != nil {
			var deadline time.Time
			if len(line) > 0 {
				deadline = lineTime.Add(IdleFlush)
			}
			dl.SetReadDeadline(deadline)
		}
		n, err := r.Read(buf)
		now := time.Now()
		data := buf[:n]
		for len(data) > 0 {
			if len(line) == 0 {
				lineTime = now
			}
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				line = append(line, data...)
				break
			}
			emit(append(line, data[:i]...), false, lineTime)
			line, data = line[:0], data[i+1:]
		}
		for len(line) >= MaxRecord {
			keep(w.Write(Record{Time: lineTime, Text: line[:MaxRecord], Partial: true}))
			line = append(line[:0], line[MaxRecord:]...)
		}
		idle := errors.Is(err, os.ErrDeadlineExceeded)
		if len(line) > 0 && (idle || err != nil) {
			emit(line, true, lineTime)
			line = line[:0]
		}
		keep(w.Flush())
		switch {
		case err == nil || idle:
		case errors.Is(err, io.EOF):
			return werr
		default:
			return err
		}
	}
}
