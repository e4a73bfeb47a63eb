package preflight

import (
	"strings"
	"testing"
	"time"

	fw "podspec.dev/podspec/conformance/framework"
)

func TestCheckVersionJSON(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"a complete version is accepted", `{"contractVersion":"1.0","runtime":{"name":"r","version":"1"},"profiles":["core","gc"]}`, ""},
		{"a contract 1.1 runtime declaring the recovery profile is accepted", `{"contractVersion":"1.1","runtime":{"name":"r","version":"1"},"profiles":["core","recovery"]}`, ""},
		{"a later minor contract version is accepted", `{"contractVersion":"1.3","runtime":{"name":"r","version":"1"},"profiles":["core"]}`, ""},
		{"contract 2 is refused", `{"contractVersion":"2.0","runtime":{"name":"r","version":"1"},"profiles":["core"]}`, "contractVersion"},
		{"a missing runtime version is refused", `{"contractVersion":"1.0","runtime":{"name":"r"},"profiles":["core"]}`, "runtime.name and runtime.version"},
		{"profiles without core are refused", `{"contractVersion":"1.0","runtime":{"name":"r","version":"1"},"profiles":["defer"]}`, "must contain core"},
		{"an unknown profile is refused", `{"contractVersion":"1.0","runtime":{"name":"r","version":"1"},"profiles":["core","gpu"]}`, `"gpu"`},
		{"text output is refused", `podspec 1.0`, "not one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkVersionJSON([]byte(tt.out))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckEventStream(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ev := func(seq int64, typ string, ms int) fw.RuntimeEvent {
		return fw.RuntimeEvent{Seq: seq, Type: typ, Time: t0.Add(time.Duration(ms) * time.Millisecond), Pod: "p", PodUID: "u"}
	}
	good := []fw.RuntimeEvent{ev(1, fw.EvPodCreated, 0), ev(2, fw.EvPodStarted, 5), ev(3, fw.EvPodFinished, 9)}
	if err := CheckEventStream(good); err != nil {
		t.Fatalf("a well-formed stream was refused: %v", err)
	}
	tests := map[string][]fw.RuntimeEvent{
		"a gap in seq":               {ev(1, fw.EvPodCreated, 0), ev(3, fw.EvPodFinished, 9)},
		"time going backwards":       {ev(1, fw.EvPodCreated, 5), ev(2, fw.EvPodFinished, 0)},
		"not starting at PodCreated": {ev(1, fw.EvPodStarted, 0), ev(2, fw.EvPodFinished, 1)},
		"not ending at PodFinished":  {ev(1, fw.EvPodCreated, 0), ev(2, fw.EvPodStarted, 1)},
		"no events at all":           nil,
	}
	for name, evs := range tests {
		if err := CheckEventStream(evs); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}
