package supervisor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// terminalPodLostBeforeItsLastEvents makes the files a supervisor SIGKILLed between the
// terminal state's write and its events' leaves: a state with FinishedAt that carries its last
// batch (ContainerExited, PodFinished), an events file that ends before it.
func terminalPodLostBeforeItsLastEvents(t *testing.T) *store.Pod {
	t.Helper()
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pod, err := s.CreatePod(&v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: "done"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	log, err := pod.OpenEventLog()
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	last, err := log.Pending(&runtimev1.Event{Type: runtimev1.EventContainerExited, Pod: "done", Container: "app"},
		&runtimev1.Event{Type: runtimev1.EventPodFinished, Pod: "done"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := pod.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	st.Pod.Status.Phase = v1alpha1.PodSucceeded
	st.Pod.Status.FinishedAt = &now
	st.UnwrittenEvents = last
	if err := pod.WriteState(st); err != nil {
		t.Fatal(err)
	}
	return pod
}

func eventTypes(t *testing.T, pod *store.Pod) string {
	t.Helper()
	evs, err := pod.ReadEvents(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, fmt.Sprintf("%d:%s", ev.Seq, ev.Type))
	}
	return strings.Join(out, " ")
}

func noSupervisor() ([]string, error) {
	return nil, fmt.Errorf("a terminal pod must get no supervisor")
}

// A terminal pod whose supervisor was lost between its last state write and its events gets no
// next supervisor: the next verb (Ensure) appends the carried batch, PodFinished included, once,
// with the numbers the state gave them; while another process holds the supervisor lock, it
// leaves the file to that process.
func TestSUP009_EnsureAppendsTheLastEventsOfATerminalPodsLostSupervisor(t *testing.T) {
	pod := terminalPodLostBeforeItsLastEvents(t)
	if got := eventTypes(t, pod); got != "1:PodCreated" {
		t.Fatalf("events before Ensure: %s", got)
	}

	held, err := pod.TrySupervisorLock()
	if err != nil {
		t.Fatal(err)
	}
	started, n, err := Ensure(context.Background(), pod, noSupervisor)
	held.Unlock()
	if err != nil || n != 0 || started {
		t.Fatalf("Ensure with the lock held: started %v, recovered %d, %v; want nothing done", started, n, err)
	}
	if got := eventTypes(t, pod); got != "1:PodCreated" {
		t.Fatalf("Ensure wrote %s while another process held the supervisor lock", got)
	}

	want := "1:PodCreated 2:ContainerExited 3:PodFinished"
	started, n, err = Ensure(context.Background(), pod, noSupervisor)
	if err != nil || started || n != 2 {
		t.Fatalf("Ensure: started %v, recovered %d, %v; want the 2 lost events written and no supervisor", started, n, err)
	}
	if got := eventTypes(t, pod); got != want {
		t.Fatalf("events after Ensure: %s, want %s", got, want)
	}
	if started, n, err = Ensure(context.Background(), pod, noSupervisor); err != nil || started || n != 0 {
		t.Fatalf("Ensure again: started %v, recovered %d, %v; want nothing to do", started, n, err)
	}
	if got := eventTypes(t, pod); got != want {
		t.Fatalf("events after a second Ensure: %s, want %s (written once)", got, want)
	}
}

// A terminal pod whose supervisor is alive but has not yet written its last events is not
// finished for wait (contract 4.4: PodFinished recorded): the state is written before the
// events. Once they are written, or once no supervisor is left to write them, it is.
func TestFinishedWaitsForTheEventsOfALiveSupervisor(t *testing.T) {
	pod := terminalPodLostBeforeItsLastEvents(t)
	st, err := pod.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	held, err := pod.TrySupervisorLock()
	if err != nil {
		t.Fatal(err)
	}
	if Finished(pod, st) {
		t.Error("finished while a live supervisor has not yet written PodFinished")
	}
	held.Unlock()
	if !Finished(pod, st) {
		t.Error("not finished though no supervisor is left to write the last events")
	}
	if _, _, err := Ensure(context.Background(), pod, noSupervisor); err != nil {
		t.Fatal(err)
	}
	held, err = pod.TrySupervisorLock()
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	if !Finished(pod, st) {
		t.Errorf("not finished with PodFinished written (%s)", eventTypes(t, pod))
	}
}
