package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/reference/logs"
)

// The foreground run's tailer prints every line of an instance whose log rotated past its first
// segment (dropped), goes on with the container's next instance, and closes the follower of the
// instance that ended.
func TestTheTailerFollowsALogPastItsDroppedFirstSegment(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.MkdirAll(app, 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tl := &logTailer{dir: dir, out: &out, logs: map[string]*logs.Follower{}, done: map[string]bool{}}
	lim := logs.Limits{MaxSize: logs.MinSize, MaxFiles: 2}
	w, err := logs.OpenWriter(filepath.Join(app, "0.log"), lim)
	if err != nil {
		t.Fatal(err)
	}
	write := func(w *logs.Writer, from, n int) {
		var b strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&b, "line %06d %s\n", i, strings.Repeat("x", 40))
		}
		if err := logs.Copy(strings.NewReader(b.String()), w); err != nil {
			t.Fatal(err)
		}
	}
	write(w, 0, 100)
	tl.poll()
	write(w, 100, 5000) // rotates many times: 0.log itself is dropped
	tl.poll()
	w.Close()
	if _, err := os.Stat(filepath.Join(app, "0.log")); !os.IsNotExist(err) {
		t.Fatalf("segment 0 still exists (%v): the test did not rotate past it", err)
	}
	w1, err := logs.OpenWriter(filepath.Join(app, "1.log"), lim)
	if err != nil {
		t.Fatal(err)
	}
	write(w1, 5100, 10)
	w1.Close()
	tl.poll()
	tl.poll()
	got := out.String()
	if !strings.Contains(got, "[app] line 005099 ") || !strings.Contains(got, "[app] line 005109 ") {
		t.Errorf("the tailer stopped at %q", got[max(0, len(got)-120):])
	}
	if len(tl.logs) != 1 || tl.logs[filepath.Join(app, "1.log")] == nil {
		t.Errorf("followers %v: want only the current instance's", tl.logs)
	}
}
