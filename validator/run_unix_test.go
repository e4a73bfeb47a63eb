//go:build unix

package validator

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
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
