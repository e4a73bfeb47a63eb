package suites

import (
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

func TestEventsRecordedOnce(t *testing.T) {
	ev := func(typ runtimev1.EventType, container, id string) runtimev1.Event {
		return runtimev1.Event{Type: typ, Container: container, ContainerID: id}
	}
	base := []runtimev1.Event{
		ev(runtimev1.EventPodCreated, "", ""), ev(runtimev1.EventPodStarted, "", ""),
		ev(runtimev1.EventContainerCreated, "a", "a-0"), ev(runtimev1.EventContainerStarted, "a", "a-0"),
		ev(runtimev1.EventContainerExited, "a", "a-0"), ev(runtimev1.EventContainerRestarting, "a", "a-0"),
		ev(runtimev1.EventContainerCreated, "a", "a-1"), ev(runtimev1.EventContainerStarted, "a", "a-1"),
		ev(runtimev1.EventSignalSent, "a", "a-1"), ev(runtimev1.EventSignalSent, "a", "a-1"),
		ev(runtimev1.EventContainerExited, "a", "a-1"), ev(runtimev1.EventPodFinished, "", ""),
	}
	numbered := func(evs []runtimev1.Event) []runtimev1.Event {
		out := append([]runtimev1.Event(nil), evs...)
		for i := range out {
			out[i].Seq = int64(i + 1)
		}
		return out
	}
	insert := func(at int, e runtimev1.Event) []runtimev1.Event {
		out := append(append(append([]runtimev1.Event(nil), base[:at]...), e), base[at:]...)
		return numbered(out)
	}
	for _, tc := range []struct {
		name string
		evs  []runtimev1.Event
		want string // "" when the history is whole
	}{
		{"a history with two instances and a repeated signal is whole", numbered(base), ""},
		{"an instance started twice is a repeat", insert(8, ev(runtimev1.EventContainerStarted, "a", "a-1")), "ContainerStarted of a instance a-1 recorded twice"},
		{"an instance's exit recorded twice is a repeat", insert(5, ev(runtimev1.EventContainerExited, "a", "a-0")), "ContainerExited of a instance a-0 recorded twice"},
		{"PodStarted twice is a repeat", insert(2, ev(runtimev1.EventPodStarted, "", "")), "PodStarted recorded twice"},
		{"a gap in seq fails", func() []runtimev1.Event { e := numbered(base); e[6].Seq = 9; return e }(), "has seq 9, want 7"},
		{"a history without PodFinished last fails", numbered(base[:len(base)-1]), "want PodFinished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := eventsRecordedOnce(tc.evs)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
