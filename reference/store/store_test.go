package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

func TestValidName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"web", true},
		{"a-1", true},
		{strings.Repeat("a", 63), true},
		{strings.Repeat("a", 64), false},
		{"", false},
		{"Web", false},
		{"-web", false},
		{"web-", false},
		{"../etc", false},
		{"a/b", false},
		{"a.b", false},
	}
	for _, tc := range cases {
		if err := ValidName(tc.name); (err == nil) != tc.ok {
			t.Errorf("ValidName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// testPodObject is a pod named web with one container.
func testPodObject() *v1alpha1.Pod {
	return &v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: "web"}, Spec: v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "app", Image: "oci:/x"}}}}
}

func newPod(t *testing.T) (*Store, *Pod) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "root"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreatePod(testPodObject(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func TestCreatePodAssignsAUIDAndRecordsPodCreated(t *testing.T) {
	s, p := newPod(t)
	st, err := p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Pod.Status.UID) != 36 || st.Pod.Status.Phase != v1alpha1.PodPending || st.Pod.Metadata.Generation != 1 {
		t.Errorf("state %+v, want a UUID, Pending, generation 1", st.Pod.Status)
	}
	evs, err := p.ReadEvents(0)
	if err != nil || len(evs) != 1 || evs[0].Type != runtimev1.EventPodCreated || evs[0].Seq != 1 || evs[0].PodUID != st.Pod.Status.UID {
		t.Errorf("events %+v (%v), want one PodCreated with seq 1", evs, err)
	}
	if _, err := s.CreatePod(&v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: "web"}}, nil, nil); !errors.Is(err, ErrExists) {
		t.Errorf("second CreatePod of the same name: %v, want ErrExists", err)
	}
	for _, dir := range []string{s.Root, p.Dir} {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700 (%v)", dir, fi.Mode().Perm(), err)
		}
	}
}

func TestWriteStateLeavesOnlyTheStateFile(t *testing.T) {
	_, p := newPod(t)
	st, _ := p.ReadState()
	for i := 0; i < 5; i++ {
		st.Pod.Status.Message = strings.Repeat("x", i*1000)
		if err := p.WriteState(st); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(p.Dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	got, _ := p.ReadState()
	if got.Pod.Status.Message != strings.Repeat("x", 4000) {
		t.Errorf("read back a different state")
	}
}

func TestEventLogRepairsATornLineAndContinuesNumbering(t *testing.T) {
	_, p := newPod(t)
	l, err := p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(&runtimev1.Event{Type: runtimev1.EventPodStarted}, &runtimev1.Event{Type: runtimev1.EventContainerCreated}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	// A crash in the middle of a write leaves a line without its newline.
	f, _ := os.OpenFile(p.Path(EventsFile), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":4,"type":"Contai`)
	f.Close()
	if evs, _ := p.ReadEvents(0); len(evs) != 3 {
		t.Errorf("readers see %d events, want the 3 complete ones", len(evs))
	}
	l, err = p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(&runtimev1.Event{Type: runtimev1.EventContainerStarted}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	evs, _ := p.ReadEvents(0)
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d", i, ev.Seq)
		}
	}
	if len(evs) != 4 || evs[3].Type != runtimev1.EventContainerStarted {
		t.Errorf("events %+v, want 4 with the torn line replaced", evs)
	}
	if after, _ := p.ReadEvents(2); len(after) != 2 || after[0].Seq != 3 {
		t.Errorf("ReadEvents(2) = %+v, want seq 3 and 4", after)
	}
}

func TestLocks(t *testing.T) {
	_, p := newPod(t)
	if p.SupervisorAlive() {
		t.Fatal("alive without a supervisor")
	}
	sup, err := p.TrySupervisorLock()
	if err != nil {
		t.Fatal(err)
	}
	if !p.SupervisorAlive() {
		t.Error("SupervisorAlive = false while the lock is held")
	}
	if _, err := p.TrySupervisorLock(); !errors.Is(err, ErrBusy) {
		t.Errorf("second supervisor lock: %v, want ErrBusy", err)
	}
	// Checking liveness must not take the lock away from a supervisor that is starting.
	sup.Unlock()
	if p.SupervisorAlive() {
		t.Error("alive after unlock")
	}
	for i := 0; i < 100; i++ {
		p.SupervisorAlive()
	}
	l, err := p.TrySupervisorLock()
	if err != nil {
		t.Fatalf("lock after liveness checks: %v", err)
	}
	l.Unlock()

	r, err := p.ReadLock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.TryRemoveLock(); !errors.Is(err, ErrBusy) {
		t.Errorf("remove lock while a reader holds the pod: %v, want ErrBusy", err)
	}
	r.Unlock()
	rm, err := p.TryRemoveLock()
	if err != nil {
		t.Errorf("remove lock without readers: %v", err)
	}
	rm.Unlock()
}

func TestOpenRefusesARootWithAComma(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "a,b")); err == nil {
		t.Error("a root with ',' was accepted; OCI runtimes split namespace paths on it")
	}
}

// TestSEC007_NoOtherUserCanReadTheState checks SEC-007 for the reference runtime (the state
// directory is not part of the runtime contract, so the conformance suite cannot check it): even
// in a root the user created world-readable, nothing of the state can be reached by other users —
// a path is readable by them only if every directory from the root down lets them search it.
func TestSEC007_NoOtherUserCanReadTheState(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreatePod(testPodObject(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteState(st); err != nil {
		t.Fatal(err)
	}
	searchable := map[string]bool{} // directories other users can reach and search
	err = filepath.Walk(s.Root, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		reachable := path == s.Root || searchable[filepath.Dir(path)]
		if reachable && fi.Mode().Perm()&0o004 != 0 {
			t.Errorf("%s (mode %v) is readable by other users", path, fi.Mode().Perm())
		}
		if fi.IsDir() && reachable && fi.Mode().Perm()&0o001 != 0 {
			searchable[path] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
