package logs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// copyAll copies input through Copy into a fresh log with lim and returns the log's path.
func copyAll(t *testing.T, lim Limits, input io.Reader) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "0.log")
	w, err := OpenWriter(path, lim)
	if err != nil {
		t.Fatal(err)
	}
	if err := Copy(input, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func render(t *testing.T, path string, f Filter, timestamps bool) string {
	t.Helper()
	lines, err := Read(path, f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, lines, timestamps); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The output reads back byte for byte: lines, an empty line, a line longer than a record, and
// an end without a newline.
func TestTheOutputReadsBackAsWritten(t *testing.T) {
	long := strings.Repeat("x", 3*MaxRecord+17)
	for _, out := range []string{"", "one\n", "one\ntwo\n\nthree", "a\n" + long + "\nb", long, "no newline at all"} {
		path := copyAll(t, Limits{}, strings.NewReader(out))
		if got := render(t, path, All, false); got != out {
			t.Errorf("read back %d bytes, want %d: %.60q…, want %.60q…", len(got), len(out), got, out)
		}
	}
}

// Every line gets the time it was read; --timestamps puts it before the line.
func TestTimestampsAreTheTimeOfReading(t *testing.T) {
	before := time.Now()
	path := copyAll(t, Limits{}, strings.NewReader("a\nb\n"))
	after := time.Now()
	lines, err := Read(path, All)
	if err != nil || len(lines) != 2 {
		t.Fatalf("lines %v, err %v", lines, err)
	}
	for _, l := range lines {
		if l.Time().Before(before.Add(-time.Microsecond)) || l.Time().After(after) {
			t.Errorf("line %q at %s, not between %s and %s", l.Text, l.Time(), before, after)
		}
	}
	out := render(t, path, All, true)
	for i, row := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		ts, text, _ := strings.Cut(row, " ")
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || text != string(lines[i].Text) {
			t.Errorf("row %q: want an RFC 3339 time, a space and the line", row)
		}
	}
}

// A line with no newline yet is written once the output is idle for IdleFlush, so that a
// prompt shows; its rest, when it comes, joins it.
func TestAnIdleUnfinishedLineIsWritten(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "0.log")
	lw, err := OpenWriter(path, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Copy(r, lw) }()
	w.WriteString("password: ")
	deadline := time.Now().Add(5 * time.Second)
	for render(t, path, All, false) != "password: " {
		if time.Now().After(deadline) {
			t.Fatalf("the prompt is not in the log after 5 s: %q", render(t, path, All, false))
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.WriteString("ok\nnext\n")
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lw.Close()
	lines, _ := Read(path, All)
	if len(lines) != 2 || string(lines[0].Text) != "password: ok" {
		t.Errorf("lines %+v: want the prompt and its answer as one line, then the next", lines)
	}
}

// numbered writes n numbered lines of width bytes each.
func numbered(from, n, width int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		s := strconv.Itoa(i)
		b.WriteString(s + strings.Repeat(".", width-len(s)) + "\n")
	}
	return b.String()
}

// checkTail checks that lines are consecutive numbers ending with last.
func checkTail(t *testing.T, lines []Line, last int) {
	t.Helper()
	if len(lines) == 0 {
		t.Fatal("no lines")
	}
	for i, l := range lines {
		want := last - (len(lines) - 1 - i)
		if got, _ := strconv.Atoi(strings.TrimRight(string(l.Text), ".")); got != want {
			t.Fatalf("line %d is %d, want %d: a gap or a repeat", i, got, want)
		}
	}
}

// The log never holds more than MaxFiles files of MaxSize bytes, keeps the newest lines with no
// gap, and drops the oldest; by default that is at most SUP-013's 64 MiB.
func TestSUP013_RotationKeepsTheLogWithinItsBound(t *testing.T) {
	if bound := DefaultLimits.MaxSize * int64(DefaultLimits.MaxFiles); bound > 64<<20 {
		t.Errorf("DefaultLimits %+v keep up to %d bytes, more than 64 MiB (SUP-013)", DefaultLimits, bound)
	}
	lim := Limits{MaxSize: MinSize, MaxFiles: 3}
	n := 20000
	path := copyAll(t, lim, strings.NewReader(numbered(0, n, 50)))
	files := Files(path)
	if len(files) != lim.MaxFiles {
		t.Errorf("%d files %v, want %d", len(files), files, lim.MaxFiles)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil || fi.Size() > lim.MaxSize {
			t.Errorf("%s: %v bytes, more than %d", f, fi.Size(), lim.MaxSize)
		}
	}
	lines, err := Read(path, All)
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, lines, n-1)
	if len(lines) < 2*MinSize/90 {
		t.Errorf("only %d lines kept: the rotated files should hold about two files' worth", len(lines))
	}
}

// A log written with larger limits, then with smaller ones (a restarted supervisor with other
// settings), drops the files beyond the new count.
func TestASmallerFileCountDropsTheExtraFiles(t *testing.T) {
	path := copyAll(t, Limits{MaxSize: MinSize, MaxFiles: 5}, strings.NewReader(numbered(0, 10000, 50)))
	w, err := OpenWriter(path, Limits{MaxSize: MinSize, MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	Copy(strings.NewReader(numbered(10000, 2000, 50)), w)
	w.Close()
	if files := Files(path); len(files) != 2 {
		t.Errorf("files %v: want 2", files)
	}
}

// --tail and --since select the last lines and the lines from a time on, across files.
func TestTailAndSince(t *testing.T) {
	r, w := io.Pipe()
	path := filepath.Join(t.TempDir(), "0.log")
	lw, _ := OpenWriter(path, Limits{MaxSize: MinSize, MaxFiles: 4})
	done := make(chan error, 1)
	go func() { done <- Copy(r, lw) }()
	fmt.Fprint(w, numbered(0, 500, 40))
	time.Sleep(50 * time.Millisecond)
	mid := time.Now()
	time.Sleep(50 * time.Millisecond)
	fmt.Fprint(w, numbered(500, 700, 40))
	w.Close()
	<-done
	lw.Close()
	tail, _ := Read(path, Filter{Tail: 10})
	if len(tail) != 10 {
		t.Fatalf("tail 10: %d lines", len(tail))
	}
	checkTail(t, tail, 1199)
	since, _ := Read(path, Filter{Since: mid, Tail: -1})
	if len(since) != 700 {
		t.Fatalf("since: %d lines, want the 700 written after it", len(since))
	}
	checkTail(t, since, 1199)
	if zero, _ := Read(path, Filter{Tail: 0}); len(zero) != 0 {
		t.Errorf("tail 0: %d lines", len(zero))
	}
}

// A follower reading while the log is written and rotated sees every line once, in order.
func TestAFollowerLosesAndRepeatsNothingAcrossRotations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	lw, err := OpenWriter(path, Limits{MaxSize: MinSize, MaxFiles: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := 30000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		pr, pw := io.Pipe()
		go func() {
			for i := 0; i < n; i += 100 {
				fmt.Fprint(pw, numbered(i, 100, 30))
			}
			pw.Close()
		}()
		Copy(pr, lw)
		lw.Close()
	}()
	fo := NewFollower(path)
	defer fo.Close()
	var got []Line
	writerDone := make(chan struct{})
	go func() { wg.Wait(); close(writerDone) }()
	for finished := false; ; {
		select {
		case <-writerDone:
			finished = true
		default:
		}
		lines, err := fo.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, lines...)
		if finished && len(lines) == 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if len(got) != n {
		t.Fatalf("followed %d lines, want %d", len(got), n)
	}
	checkTail(t, got, n-1)
}

// Bad limits are refused with what is wrong.
func TestLimitsAreValidated(t *testing.T) {
	for _, l := range []Limits{{MaxSize: 100}, {MaxFiles: -1}} {
		if err := l.Validate(); err == nil {
			t.Errorf("%+v accepted", l)
		}
	}
	if err := (Limits{}).Validate(); err != nil {
		t.Errorf("unset limits: %v", err)
	}
	if got := (Limits{}).OrDefault(); got != DefaultLimits {
		t.Errorf("defaults %+v", got)
	}
}

// Reading any file never fails nor panics: lines that are not records are skipped.
func FuzzRead(f *testing.F) {
	f.Add([]byte("2026-12-07T04:50:00.123456789Z F hello\n2026-12-07T04:50:00.2Z P par\n2026-12-07T04:50:00.3Z F t\n"))
	f.Add([]byte("garbage\n\n F \nZ P x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "0.log")
		os.WriteFile(path, data, 0o600)
		lines, err := Read(path, All)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines[:max(0, len(lines)-1)] {
			if !l.Newline {
				t.Fatalf("a line before the last has no newline: %q", l.Text)
			}
		}
	})
}

// A log that cannot be written (here /dev/full: every write fails with ENOSPC) drops what it
// cannot write, counts it, and still reads its input to the end, so that the program writing
// it never blocks.
func TestAFullDiskDropsOutputButNeverStopsReading(t *testing.T) {
	w := &Writer{path: "/dev/full", lim: DefaultLimits, seqs: []int{0}}
	if err := w.open(); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	in := strings.NewReader(numbered(0, 1000, 20))
	err := Copy(in, w)
	if err == nil || !strings.Contains(err.Error(), "no space") {
		t.Errorf("Copy: %v, want the write error (no space left on device)", err)
	}
	if in.Len() != 0 {
		t.Errorf("%d bytes left unread", in.Len())
	}
	if w.Lost < 1000*20 {
		t.Errorf("Lost %d bytes, want at least the %d of text", w.Lost, 1000*20)
	}
}
