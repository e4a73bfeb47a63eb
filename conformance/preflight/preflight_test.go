package preflight

import (
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

func TestCheckVersionJSON(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"a complete version is accepted", `{"contractVersion":"1.0","runtime":{"name":"r","version":"1"},"profiles":["core","gc"]}`, ""},
		{"a contract 1.1 runtime declaring the recovery profile is accepted", `{"contractVersion":"1.1","runtime":{"name":"r","version":"1"},"profiles":["core","recovery"]}`, ""},
		{"a later minor contract version is accepted", `{"contractVersion":"1.3","runtime":{"name":"r","version":"1"},"profiles":["core"],"stateDirectories":["/var/lib/r"]}`, ""},
		{"a contract 1.2 runtime naming its state directories is accepted", `{"contractVersion":"1.2","runtime":{"name":"r","version":"1"},"profiles":["core"],"stateDirectories":["/var/lib/r","/run/r"]}`, ""},
		{"a contract 1.2 runtime without stateDirectories is refused", `{"contractVersion":"1.2","runtime":{"name":"r","version":"1"},"profiles":["core"]}`, "stateDirectories must be a non-empty array"},
		{"a contract 1.2 runtime with no state directory is refused", `{"contractVersion":"1.2","runtime":{"name":"r","version":"1"},"profiles":["core"],"stateDirectories":[]}`, "stateDirectories must be a non-empty array"},
		{"a relative state directory is refused", `{"contractVersion":"1.2","runtime":{"name":"r","version":"1"},"profiles":["core"],"stateDirectories":["var/lib/r"]}`, `"var/lib/r" is not an absolute`},
		{"an unclean state directory is refused", `{"contractVersion":"1.2","runtime":{"name":"r","version":"1"},"profiles":["core"],"stateDirectories":["/var/lib/r/"]}`, `is not an absolute, clean path`},
		{"a contract 1.1 runtime needs no stateDirectories", `{"contractVersion":"1.1","runtime":{"name":"r","version":"1"},"profiles":["core"]}`, ""},
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
	ev := func(seq int64, typ runtimev1.EventType, ms int) runtimev1.Event {
		return runtimev1.Event{Seq: seq, Type: typ, Time: t0.Add(time.Duration(ms) * time.Millisecond), Pod: "p", PodUID: "u"}
	}
	good := []runtimev1.Event{ev(1, runtimev1.EventPodCreated, 0), ev(2, runtimev1.EventPodStarted, 5), ev(3, runtimev1.EventPodFinished, 9)}
	if err := CheckEventStream(good); err != nil {
		t.Fatalf("a well-formed stream was refused: %v", err)
	}
	tests := map[string][]runtimev1.Event{
		"a gap in seq":               {ev(1, runtimev1.EventPodCreated, 0), ev(3, runtimev1.EventPodFinished, 9)},
		"time going backwards":       {ev(1, runtimev1.EventPodCreated, 5), ev(2, runtimev1.EventPodFinished, 0)},
		"not starting at PodCreated": {ev(1, runtimev1.EventPodStarted, 0), ev(2, runtimev1.EventPodFinished, 1)},
		"not ending at PodFinished":  {ev(1, runtimev1.EventPodCreated, 0), ev(2, runtimev1.EventPodStarted, 1)},
		"no events at all":           nil,
	}
	for name, evs := range tests {
		if err := CheckEventStream(evs); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}

func TestValidateEvents(t *testing.T) {
	good := `{"seq":1,"time":"2026-11-30T12:00:00.000000001Z","type":"PodCreated","pod":"web","podUID":"5b0c"}
{"seq":2,"time":"2026-11-30T12:00:01Z","type":"ContainerExited","pod":"web","podUID":"5b0c","container":"app","containerKind":"main","containerID":"5b0c-app-1","restartCount":0,"signal":{"name":"SIGTERM","number":15,"fieldOfMyOwn":1},"reason":"Error"}
{"seq":3,"time":"2026-11-30T12:00:02Z","type":"SomethingOfMyOwn","pod":"web","podUID":"5b0c","fieldOfMyOwn":{"any":[1,"thing"]}}

`
	// Types and fields of a runtime's own are allowed (sections 2 and 5.2).
	if err := ValidateEvents([]byte(good)); err != nil {
		t.Fatalf("valid events were refused: %v", err)
	}
	bad := map[string]string{
		"a missing podUID":            `{"seq":1,"time":"2026-11-30T12:00:00Z","type":"PodCreated","pod":"web"}`,
		"seq zero":                    `{"seq":0,"time":"2026-11-30T12:00:00Z","type":"PodCreated","pod":"web","podUID":"u"}`,
		"a time that is not RFC 3339": `{"seq":1,"time":"yesterday","type":"PodCreated","pod":"web","podUID":"u"}`,
		"an unknown container kind":   `{"seq":1,"time":"2026-11-30T12:00:00Z","type":"ContainerStarted","pod":"web","podUID":"u","container":"a","containerKind":"helper"}`,
		"an exit code as a string":    `{"seq":1,"time":"2026-11-30T12:00:00Z","type":"ContainerExited","pod":"web","podUID":"u","exitCode":"3"}`,
		"a hook of another name":      `{"seq":1,"time":"2026-11-30T12:00:00Z","type":"HookStarted","pod":"web","podUID":"u","hook":"postStop"}`,
		"a line that is not JSON":     `seq=1 type=PodCreated`,
		"two values on one line":      `{"seq":1,"time":"2026-11-30T12:00:00Z","type":"PodCreated","pod":"web","podUID":"u"} {}`,
	}
	for name, line := range bad {
		t.Run(name, func(t *testing.T) {
			out := strings.SplitN(good, "\n", 2)[0] + "\n" + line + "\n"
			err := ValidateEvents([]byte(out))
			if err == nil {
				t.Fatalf("a malformed event was accepted: %s", line)
			}
			if !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "line 1 ") {
				t.Errorf("the error does not name line 2 alone: %v", err)
			}
		})
	}
}

func TestValidateStatus(t *testing.T) {
	const main = `{"name":"app","image":"oci:/l:latest","ready":false,"started":false,"restartCount":0,
	  "state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2026-11-30T12:00:00Z","finishedAt":"2026-11-30T12:00:01Z"}}}`
	good := `{"uid":"5b0c7e0a-2f4e-4c1e-9a57-0d5b7f3c2a10","phase":"Succeeded","containerStatuses":[` + main + `]}`
	if err := ValidateStatus([]byte(good)); err != nil {
		t.Fatalf("a valid status was refused: %v", err)
	}
	// Section 2: a runtime MAY add fields to any object, at any depth.
	extended := `{"uid":"5b0c7e0a-2f4e-4c1e-9a57-0d5b7f3c2a10","phase":"Succeeded","vendor.example/node":"n1",
	  "containerStatuses":[{"name":"app","image":"oci:/l:latest","ready":false,"started":false,"restartCount":0,"myCounter":3,
	    "state":{"myState":{},"terminated":{"exitCode":0,"reason":"Completed","myExtra":true,"startedAt":"2026-11-30T12:00:00Z","finishedAt":"2026-11-30T12:00:01Z"}}}]}`
	if err := ValidateStatus([]byte(extended)); err != nil {
		t.Fatalf("a status with fields of the runtime's own was refused: %v", err)
	}
	// It MUST NOT change the meaning of the documented ones: those are held to the schema.
	bad := map[string]string{
		"a phase of its own":          `{"uid":"5b0c7e0a-2f4e-4c1e-9a57-0d5b7f3c2a10","phase":"Done","extra":1}`,
		"no uid":                      `{"phase":"Succeeded","extra":1}`,
		"a restart count as a string": strings.Replace(extended, `"restartCount":0`, `"restartCount":"0"`, 1),
		"two states at once":          strings.Replace(extended, `"myState":{}`, `"running":{"startedAt":"2026-11-30T12:00:00Z"}`, 1),
		"a negative restart count":    strings.Replace(extended, `"restartCount":0`, `"restartCount":-1`, 1),
		"a list given as an object":   `{"uid":"5b0c7e0a-2f4e-4c1e-9a57-0d5b7f3c2a10","phase":"Succeeded","containerStatuses":{"app":{}}}`,
		"two JSON values":             good + " {}",
	}
	for name, out := range bad {
		t.Run(name, func(t *testing.T) {
			if err := ValidateStatus([]byte(out)); err == nil {
				t.Fatalf("accepted: %s", out)
			}
		})
	}
}
