package validator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/bench/podgen"
	"podspec.dev/podspec/manifest"
)

// streamDocuments are the documents of the stream tests: every one-document corpus manifest
// (valid and invalid, so most rules and positions occur) and generated pods, valid and not.
func streamDocuments(t testing.TB, n int) []string {
	var corpus []string
	for _, dir := range []string{"../testdata/valid", "../testdata/invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			segs, fs := manifest.Split(f, data, manifest.DefaultLimits())
			if len(segs) == 1 && len(fs) == 0 && !bytes.HasPrefix(data, []byte("---")) {
				corpus = append(corpus, string(data))
			}
		}
	}
	if len(corpus) < 50 {
		t.Fatalf("only %d corpus documents", len(corpus))
	}
	docs := make([]string, n)
	for i := range docs {
		if i%3 == 0 {
			docs[i] = corpus[(i/3)%len(corpus)]
		} else {
			docs[i] = podgen.Pod(i, i%7 == 1)
		}
		if !strings.HasSuffix(docs[i], "\n") {
			docs[i] += "\n"
		}
	}
	return docs
}

// A large stream, read from a file one document at a time (it is over streamAbove) and from
// standard input, gives exactly the results of validating its documents one by one: the same
// findings at the same positions (shifted by the lines before each document), in source order.
func TestLargeStreamMatchesDocumentsOneByOne(t *testing.T) {
	docs := streamDocuments(t, 3000)
	v, err := New(Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	const name = "stream.yaml"
	var want []*Result
	var stream bytes.Buffer
	line := 0
	for i, doc := range docs {
		if i > 0 {
			stream.WriteString("---\n")
			line++
		}
		stream.WriteString(doc)
		for _, r := range v.Bytes(name, []byte(doc)) {
			r.Document = i
			lines := map[int]string{}
			for k, s := range r.Lines {
				lines[k+line] = s
			}
			if r.Lines != nil {
				r.Lines = lines
			}
			for j := range r.Findings {
				r.Findings[j].Document = i
				if r.Findings[j].Pos.Line > 0 {
					r.Findings[j].Pos.Line += line
				}
				// A message that names another line (MAN-005 "already defined at line N", MAN-006
				// "opened on line N").
				r.Findings[j].Message = reLine.ReplaceAllStringFunc(r.Findings[j].Message, func(m string) string {
					sub := reLine.FindStringSubmatch(m)
					n, _ := strconv.Atoi(sub[2])
					return fmt.Sprintf("%s line %d", sub[1], n+line)
				})
			}
			want = append(want, r)
		}
		line += strings.Count(doc, "\n")
	}
	if stream.Len() <= streamAbove {
		t.Fatalf("the stream is %d bytes: not over streamAbove", stream.Len())
	}
	errorsWanted := 0
	for _, r := range want {
		errorsWanted += len(r.Findings)
	}
	if errorsWanted < 500 {
		t.Fatalf("only %d findings: the test would show little", errorsWanted)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, stream.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := manifest.DefaultLimits()
	lim.MaxBytes, lim.MaxDocuments = int64(stream.Len()), len(docs)
	for _, tc := range []struct {
		name, path string
		stdin      io.Reader
	}{
		{"file", path, nil},
		{"stdin", "-", bytes.NewReader(stream.Bytes())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := New(Options{Workers: 3, Limits: lim})
			var got []*Result
			sum, err := v.Run(context.Background(), []string{tc.path}, tc.stdin, func(r *Result) error {
				got = append(got, r)
				return nil
			})
			if err != nil || sum.Files != 1 || sum.Documents != len(docs) {
				t.Fatalf("run: %+v %v", sum, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i := range got {
				rename(got[i], name)
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("document %d differs:\n got %+v\nwant %+v", i, got[i], want[i])
				}
			}
		})
	}
}

var reLine = regexp.MustCompile(`(at|on) line ([0-9]+)`)

// rename gives a result and its findings the file name name.
func rename(r *Result, name string) {
	r.File = name
	for j := range r.Findings {
		r.Findings[j].Pos.File = name
	}
}

// Past --max-documents, a stream read one document at a time reports the documents before the
// limit and then the limit, as a stream read whole does.
func TestLargeStreamDocumentLimit(t *testing.T) {
	docs := streamDocuments(t, 1000)
	data := []byte(strings.Join(docs, "---\n"))
	if len(data) <= streamAbove {
		t.Fatalf("the stream is %d bytes: not over streamAbove", len(data))
	}
	path := filepath.Join(t.TempDir(), "stream.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lim := manifest.DefaultLimits()
	lim.MaxDocuments = 400
	c := run(t, Options{Limits: lim}, []string{path}, "")
	last := c.results[len(c.results)-1]
	if c.sum.Documents != 401 || last.Document != 400 || last.Findings[0].Rule != "MAN-007" {
		t.Errorf("document limit: %+v, last %+v", c.sum, last)
	}
	whole := run(t, Options{Limits: lim}, []string{"-"}, string(data))
	for i := range whole.results {
		rename(whole.results[i], path)
	}
	if !reflect.DeepEqual(whole.results, c.results) {
		t.Errorf("read whole, the stream gives other results")
	}
}

// BenchmarkStream validates one stream of 1,000, 10,000 and 100,000 generated pods (read one
// document at a time from a reader that makes them as it is read): the CPU per document (cpu-ns/doc) and the peak heap
// (peak-heap-MB, sampled) should not grow with the stream.
//
//	go test ./validator -run '^$' -bench Stream -benchtime 1x
func BenchmarkStream(b *testing.B) {
	docs := make([][]byte, 1000)
	for i := range docs {
		docs[i] = []byte("---\n" + podgen.Pod(i, false))
	}
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			lim := manifest.DefaultLimits()
			lim.MaxBytes, lim.MaxDocuments = 1<<40, n
			v, err := New(Options{Limits: lim})
			if err != nil {
				b.Fatal(err)
			}
			v.Bytes("pod.yaml", docs[0][4:]) // compile schemas outside the timing
			peak := sampleHeap()
			b.ResetTimer()
			cpu := processCPU()
			for b.Loop() {
				sum, err := v.Run(context.Background(), []string{"-"}, &docReader{docs: docs, n: n}, func(*Result) error { return nil })
				if err != nil || sum.Documents != n || sum.Errors != 0 {
					b.Fatalf("run: %+v %v", sum, err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(n*b.N), "cpu-ns/doc")
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
		})
	}
}

// docReader reads n documents, cycling through docs.
type docReader struct {
	docs [][]byte
	n, i int
	rest []byte
}

func (r *docReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		r.rest = r.docs[r.i%len(r.docs)]
		r.i++
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// sampleHeap samples the bytes of live and not yet collected heap objects every millisecond
// until the returned function is called, which returns the largest sample.
func sampleHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}
