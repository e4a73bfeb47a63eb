package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTimelineDrawsARealPod runs a pod (an init container, a sidecar, a main container that
// exits 3, which ends the pod through the exit policy) and draws it twice: from the pod, and from
// its saved events stream with the same grace period. Both pictures are the same; the lanes
// follow the start order, the main container's bar ends "exit 3", and the grace budget begins
// where the stop sequence began.
func TestTimelineDrawsARealPod(t *testing.T) {
	c, layout := runtimeTestSetup(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	os.WriteFile(manifest, []byte(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: pic}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 7
  initContainers:
  - {name: setup, image: "oci:`+layout+`", command: ["true"]}
  - {name: side, image: "oci:`+layout+`", restartPolicy: Always, command: [sh, -c, "trap 'exit 0' TERM; while true; do sleep 0.05; done"]}
  containers:
  - {name: app, image: "oci:`+layout+`", command: [sh, -c, "sleep 0.3; exit 3"]}
`), 0o644)
	if _, code := c.run("run", "--detach", manifest); code != 0 {
		t.Fatalf("run --detach: exit %d", code)
	}
	t.Cleanup(func() { c.run("rm", "--force", "pic") })
	if _, code := c.run("wait", "--timeout", "120s", "pic"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	events, code := c.run("events", "--follow", "pic")
	if code != 0 {
		t.Fatalf("events: exit %d", code)
	}
	saved := filepath.Join(dir, "events.jsonl")
	os.WriteFile(saved, []byte(events), 0o644)
	fromPod := filepath.Join(dir, "pod.svg")
	if _, code := c.run("timeline", "pic", "-o", fromPod); code != 0 {
		t.Fatalf("timeline pic: exit %d", code)
	}
	fromFile, code := c.run("timeline", "--events", saved, "--grace-period", "7")
	if code != 0 {
		t.Fatalf("timeline --events: exit %d", code)
	}
	svg, err := os.ReadFile(fromPod)
	if err != nil {
		t.Fatal(err)
	}
	if string(svg) != fromFile {
		t.Error("the picture of the pod and that of its saved events differ")
	}
	var lanes []string
	for _, m := range regexp.MustCompile(`class="lane" data-index="\d+" data-container="([^"]*)" data-kind="([^"]*)"`).FindAllStringSubmatch(string(svg), -1) {
		lanes = append(lanes, m[1]+"/"+m[2])
	}
	if got := strings.Join(lanes, " "); got != "setup/init side/sidecar app/main" {
		t.Errorf("lanes %q, want setup/init side/sidecar app/main", got)
	}
	if !regexp.MustCompile(`data-end="exit 3"`).Match(svg) {
		t.Error("no bar ends with exit 3")
	}
	if !regexp.MustCompile(`class="budget-span" data-index="0" data-from="[0-9.]+" data-to="[0-9.]+" data-grace="7.000"`).Match(svg) {
		t.Error("no grace budget of 7 s")
	}
}

func TestTimelineRefusesWhatItCannotDraw(t *testing.T) {
	dir := t.TempDir()
	c := cmdline{t: t, root: filepath.Join(dir, "root")}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"seq":1,"time":"2026-01-01T00:00:00Z","type":"PodCreated"}`+"\n\nnot json\n"), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	out := filepath.Join(dir, "out.svg")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"a line that is not an event is a usage error", []string{"timeline", "--events", bad, "-o", out}, 2},
		{"an empty stream has nothing to draw", []string{"timeline", "--events", empty, "-o", out}, 1},
		{"a missing file", []string{"timeline", "--events", filepath.Join(dir, "nope"), "-o", out}, 3},
		{"an unknown pod", []string{"timeline", "nope", "-o", out}, 4},
		{"a pod and a file", []string{"timeline", "nope", "--events", bad}, 2},
		{"neither", []string{"timeline"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, code := c.run(tc.args...); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a failed timeline wrote its output")
			}
		})
	}
}
