//go:build unix

package validator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"podspec.dev/podspec/bench/podgen"
	"podspec.dev/podspec/manifest"
)

func TestRunSkipsFilesUnderADirectoryThatAreNotRegularAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.yaml": fmt.Sprintf(validPod, "a"), "d.yaml": fmt.Sprintf(validPod, "d")})
	if err := syscall.Mkfifo(filepath.Join(dir, "b.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "c.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.yaml", filepath.Join(dir, "e.yaml")); err != nil {
		t.Fatal(err)
	}
	var skipped []string
	done := make(chan collected, 1)
	go func() {
		done <- run(t, Options{Skipped: func(name, why string) {
			skipped = append(skipped, filepath.Base(name)+": "+why)
		}}, []string{dir}, "")
	}()
	var c collected
	select {
	case c = <-done:
	case <-time.After(20 * time.Second):
		// Unblock the reader (a writer ends the FIFO's open) so that the test can end.
		if f, err := os.OpenFile(filepath.Join(dir, "b.yaml"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("validating a directory holding a FIFO named *.yaml hangs")
	}
	if c.err != nil || !slices.Equal(files(c.results), []string{"a.yaml#0", "d.yaml#0", "e.yaml#0"}) {
		t.Errorf("results %v, error %v; want the regular files and the link to one", files(c.results), c.err)
	}
	want := []string{"b.yaml: a named pipe (FIFO), not a regular file", "c.yaml: a symbolic link to a character device, not a regular file"}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
}

func TestRunReadsANamedPipeGivenExplicitly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			fmt.Fprintf(f, invalidPod, "p")
			f.Close()
		}
	}()
	c := run(t, Options{}, []string{fifo}, "")
	if c.err != nil || len(c.results) != 1 || c.sum.Errors != 1 {
		t.Errorf("results %v summary %+v error %v", files(c.results), c.sum, c.err)
	}
}

// Standard input and a named pipe are read whole only when they are small: a longer stream is
// validated one document at a time while it is still being written. The writer keeps its end
// open until the first result has come out (or a minute has passed, and the test fails): an
// input read whole would have no result before its end.
func TestPipesAreValidatedWhileTheyAreWritten(t *testing.T) {
	var stream bytes.Buffer
	n := 0
	for stream.Len() <= 2*streamAbove {
		if n > 0 {
			stream.WriteString("---\n")
		}
		stream.WriteString(podgen.Pod(n, false))
		n++
	}
	fifo := filepath.Join(t.TempDir(), "pods.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
	}{{"stdin", "-"}, {"named pipe", fifo}} {
		t.Run(tc.name, func(t *testing.T) {
			first := make(chan struct{})
			var stdin io.Reader
			write := func(w io.WriteCloser) {
				defer w.Close()
				if _, err := w.Write(stream.Bytes()); err != nil {
					t.Error(err)
					return
				}
				select {
				case <-first:
				case <-time.After(time.Minute):
					t.Error("no result before the end of the input: it was read whole")
				}
			}
			if tc.path == "-" {
				r, w := io.Pipe()
				stdin = r
				go write(w)
			} else {
				go func() {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err != nil {
						t.Error(err)
						return
					}
					write(w)
				}()
			}
			lim := manifest.DefaultLimits()
			lim.MaxBytes, lim.MaxDocuments = int64(stream.Len()), n
			v, _ := New(Options{Limits: lim})
			results := 0
			sum, err := v.Run(context.Background(), []string{tc.path}, stdin, func(r *Result) error {
				if results == 0 {
					close(first)
				}
				results++
				return nil
			})
			if err != nil || sum.Documents != n || sum.Errors != 0 || results != n {
				t.Fatalf("run: %d results, %+v, %v; want %d valid documents", results, sum, err, n)
			}
		})
	}
}
