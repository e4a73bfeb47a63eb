package dirwatch

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestChangesReportsWhatMatchAccepts: a file renamed into place is an event match is asked
// about, and a receive once match accepted it; stop ends the watch and may be called again.
func TestChangesReportsWhatMatchAccepts(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var asked []fsnotify.Event
	changed, stop, err := Changes(dir, func(ev fsnotify.Event) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, ev)
		return filepath.Base(ev.Name) == "pid" && ev.Has(fsnotify.Create)
	})
	if err != nil {
		t.Skipf("no inotify watch here: %v", err)
	}
	defer stop()
	if err := os.WriteFile(filepath.Join(dir, ".pid.tmp"), []byte("1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".pid.tmp"), filepath.Join(dir, "pid")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no receive after the pid file was renamed into place")
	}
	stop()
	stop()
	mu.Lock()
	defer mu.Unlock()
	if len(asked) == 0 || filepath.Base(asked[len(asked)-1].Name) != "pid" {
		t.Errorf("match was asked about %v, last the pid file's creation", asked)
	}
}
