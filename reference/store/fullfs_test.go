package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// smallFS mounts a tmpfs of size bytes (root only) and unmounts it when the test ends.
func smallFS(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// podOnSmallFS creates pod web in a root on a 256 KiB tmpfs; dir is the tmpfs.
func podOnSmallFS(t *testing.T) (string, *Pod) {
	t.Helper()
	dir := smallFS(t, 256<<10)
	s, err := Open(filepath.Join(dir, "root"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.CreatePod(testPodObject(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

// fill writes a file until the file system is full; removing it makes room again.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{'x'}, 1024)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	for _, n := range []int{512, 64, 1} {
		for {
			if _, err := f.Write(chunk[:n]); err != nil {
				break
			}
		}
	}
}

func TestSUP009_EventAppendIsWholeOrAbsentOnAFullDisk(t *testing.T) {
	dir, p := podOnSmallFS(t)
	log, err := p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if err := log.Append(&runtimev1.Event{Type: runtimev1.EventPodStarted, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p.Path(EventsFile))
	fill(t, filepath.Join(dir, "filler"))
	// A batch larger than what is left of the file's last page: part of it would fit.
	big := &runtimev1.Event{Type: runtimev1.EventContainerExited, Pod: "web", Message: strings.Repeat("m", 8000)}
	err = log.Append(&runtimev1.Event{Type: runtimev1.EventStopRequested, Pod: "web"}, big)
	if !IsNoSpace(err) {
		t.Fatalf("append on a full disk: %v, want ENOSPC", err)
	}
	if big.Seq != 0 {
		t.Errorf("an event that was not written keeps seq %d", big.Seq)
	}
	after, _ := os.ReadFile(p.Path(EventsFile))
	if !bytes.Equal(before, after) {
		t.Fatalf("a failed append left %d bytes in the log (want it whole or absent):\n%s", len(after)-len(before), after[len(before):min(len(after), len(before)+200)])
	}
	// Held events keep their order and numbers and are written first once there is room.
	if err := log.Hold(&runtimev1.Event{Type: runtimev1.EventStopRequested, Pod: "web"}, big); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(&runtimev1.Event{Type: runtimev1.EventPodTerminating, Pod: "web"}); !IsNoSpace(err) {
		t.Fatalf("append with held events on a full disk: %v", err)
	}
	if log.Held() != 2 {
		t.Errorf("held %d events, want 2", log.Held())
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if err := log.Append(&runtimev1.Event{Type: runtimev1.EventPodTerminating, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	if got, want := numberedEvents(t, p), "1:PodCreated 2:PodStarted 3:StopRequested 4:ContainerExited 5:PodTerminating"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// numberedEvents reads the pod's events as "SEQ:TYPE ..." and fails the test unless their
// numbers run 1, 2, 3 without gaps or repeats.
func numberedEvents(t *testing.T, p *Pod) string {
	t.Helper()
	evs, err := p.ReadEvents(0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, ev := range evs {
		got = append(got, fmt.Sprintf("%d:%s", ev.Seq, ev.Type))
		if ev.Seq != int64(i+1) {
			t.Errorf("event %d has seq %d: numbers must run 1, 2, 3 without gaps or repeats", i, ev.Seq)
		}
	}
	return strings.Join(got, " ")
}

func TestAFailedStateWriteLeavesTheOldStateAndNoTemporaryFile(t *testing.T) {
	dir, p := podOnSmallFS(t)
	st, err := p.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	fill(t, filepath.Join(dir, "filler"))
	st.Pod.Metadata.Annotations = map[string]string{"big": strings.Repeat("a", 64<<10)}
	if err := p.WriteState(st); !IsNoSpace(err) {
		t.Fatalf("state write on a full disk: %v, want ENOSPC", err)
	}
	again, err := p.ReadState()
	if err != nil || again.Pod.Metadata.Annotations["big"] != "" {
		t.Fatalf("after a failed write the state is %v (err %v), want the old one", again.Pod.Metadata.Annotations, err)
	}
	ents, _ := os.ReadDir(p.Dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a failed state write left %s", e.Name())
		}
	}
	// The reserved failure record is written in place, without room.
	if err := p.SetPersistError(&PersistFailure{Error: "no space left on device"}); err != nil {
		t.Fatalf("recording the failure on a full disk: %v", err)
	}
	if pf := p.PersistError(); pf == nil || pf.Error != "no space left on device" {
		t.Errorf("failure record %+v", pf)
	}
	if err := p.SetPersistError(nil); err != nil || p.PersistError() != nil {
		t.Errorf("clearing the failure record: %v, %+v", err, p.PersistError())
	}
}

func TestSUP009_OpenEventLogNumbersAfterTheLastValidLine(t *testing.T) {
	_, p := newPod(t)
	log, err := p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := log.Append(&runtimev1.Event{Type: runtimev1.EventProbeFailed, Pod: "web"}); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	f, err := os.OpenFile(p.Path(EventsFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A complete line that does not parse (an event cut off and merged with the next one), then
	// a torn one.
	f.WriteString(`{"seq":5,"time":"2026-01-01T00:00:00Z","type":"Contai{"seq":6,"type":"PodFinished"}` + "\n")
	f.WriteString(`{"seq":7,"ti`)
	f.Close()
	log, err = p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(&runtimev1.Event{Type: EventSupervisorAdopted, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	evs, err := p.ReadEvents(0)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Type != EventSupervisorAdopted || last.Seq != 5 {
		t.Errorf("the adopter's first event is %d %s, want seq 5 (after the last valid seq 4, never 1)", last.Seq, last.Type)
	}
	seen := map[int64]bool{}
	for _, ev := range evs {
		if seen[ev.Seq] {
			t.Errorf("seq %d appears twice", ev.Seq)
		}
		seen[ev.Seq] = true
	}
}

// TestSUP009_EventsAStateCarriesAreRecoveredInTheirPlace: a supervisor lost between a state
// write and the append of its events leaves them in the state (Pending); the next one writes
// those the file lacks (Recover), with the numbers and times they were given, and numbers on
// after them. Events the file already holds are not written twice.
func TestSUP009_EventsAStateCarriesAreRecoveredInTheirPlace(t *testing.T) {
	_, p := newPod(t)
	log, err := p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	if err := log.Append(&runtimev1.Event{Type: runtimev1.EventContainerStarted, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	exited := &runtimev1.Event{Type: runtimev1.EventContainerExited, Pod: "web", Container: "churn"}
	restarting := &runtimev1.Event{Type: runtimev1.EventContainerRestarting, Pod: "web", Container: "churn"}
	unwritten, err := log.Pending(exited, restarting)
	if err != nil {
		t.Fatal(err)
	}
	// The supervisor dies here: its state holds unwritten, the file does not.
	log.Close()
	if len(unwritten) != 2 || unwritten[0].Seq != 3 || unwritten[1].Seq != 4 || unwritten[0].Time.IsZero() {
		t.Fatalf("Pending = %+v, want the two events numbered 3 and 4 (after PodCreated and ContainerStarted), with times", unwritten)
	}
	log, err = p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	// The already written ContainerStarted comes along, as in a state whose events were held.
	started, err := p.ReadEvents(1)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := log.Recover(append(started, unwritten...)); err != nil || n != 2 {
		t.Fatalf("Recover wrote %d events (%v), want the 2 the file lacked", n, err)
	}
	if n, err := log.Recover(unwritten); err != nil || n != 0 {
		t.Fatalf("Recover again wrote %d events (%v), want none", n, err)
	}
	if err := log.Append(&runtimev1.Event{Type: EventSupervisorAdopted, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	if got, want := numberedEvents(t, p), "1:PodCreated 2:ContainerStarted 3:ContainerExited 4:ContainerRestarting 5:SupervisorAdopted"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	evs, err := p.ReadEvents(0)
	if err != nil {
		t.Fatal(err)
	}
	if !evs[2].Time.Equal(unwritten[0].Time) {
		t.Errorf("the recovered ContainerExited is stamped %s, want its own time %s", evs[2].Time, unwritten[0].Time)
	}
}

// LacksEvents reads the events file's tail: it answers whether the last event that parses is
// numbered below the last carried one, past a torn last line, a garbage line and a tail that
// starts in the middle of a line longer than the part it reads.
func TestLacksEventsReadsTheTailOfTheEventsFile(t *testing.T) {
	_, p := newPod(t) // PodCreated is seq 1
	carried := func(seq int64) []runtimev1.Event { return []runtimev1.Event{{Seq: seq - 1}, {Seq: seq}} }
	appendRaw := func(s string) {
		f, err := os.OpenFile(p.Path(EventsFile), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	if p.LacksEvents(nil) {
		t.Error("nothing carried: LacksEvents must say false")
	}
	if !p.LacksEvents(carried(2)) || p.LacksEvents(carried(1)) {
		t.Error("with events 1..1 written, seq 2 must be lacking and seq 1 not")
	}
	log, err := p.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	// A long event: the 64 KiB tail starts inside it.
	if err := log.Append(&runtimev1.Event{Type: runtimev1.EventContainerExited, Pod: "web", Message: strings.Repeat("x", 100<<10)},
		&runtimev1.Event{Type: runtimev1.EventPodFinished, Pod: "web"}); err != nil {
		t.Fatal(err)
	}
	log.Close()
	if p.LacksEvents(carried(3)) || !p.LacksEvents(carried(4)) {
		t.Error("with events 1..3 written (the tail inside a 100 KiB line), seq 3 must be there and 4 lacking")
	}
	appendRaw("garbage\n{\"seq\":")
	if p.LacksEvents(carried(3)) || !p.LacksEvents(carried(4)) {
		t.Error("a garbage line and a torn one after event 3 must be skipped")
	}
	if err := os.Remove(p.Path(EventsFile)); err != nil {
		t.Fatal(err)
	}
	if !p.LacksEvents(carried(1)) {
		t.Error("a missing events file lacks every event")
	}
}
