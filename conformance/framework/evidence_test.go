package framework

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// evidenceRuntime is a runtime following the contract for one pod, "web" (uid u1), with an init
// container and a main container that restarted once, targeted by one Notification "n1"; "n2"
// targets another pod. Every invocation's arguments are appended to the returned file.
func evidenceRuntime(t *testing.T) (*Runtime, string) {
	t.Helper()
	calls := filepath.Join(t.TempDir(), "calls")
	rt := fakeRuntime(t, `echo "$@" >> `+calls+`
shift 4
case "$1 $2" in
"run --detach") echo '{"name":"'"$4"'","uid":"u1"}' ;;
"status "*) echo '{"phase":"Running","initContainerStatuses":[{"name":"init","restartCount":0}],"containerStatuses":[{"name":"app","restartCount":1}]}' ;;
"events "*) echo '{"seq":1,"type":"PodCreated","pod":"web"}'; echo '{"seq":2,"type":"PodStarted","pod":"web"}' ;;
"logs "*) echo "output of $2 $3 $4" ;;
"wait "*) echo '{"phase":"Succeeded"}' ;;
"rm "*) ;;
"notification results")
  if [ "$3" = n1 ]; then echo '[{"notification":"n1","pod":"'"$WEB"'","podUID":"u1","phase":"Pending"}]'; else echo '[{"notification":"n2","pod":"other","podUID":"u9","phase":"Pending"}]'; fi ;;
"notification status") echo '{"phase":"Running","targets":1,"pending":1}' ;;
*) echo '{"error":{"code":"Usage","message":"unexpected"}}' >&2; exit 2 ;;
esac
`)
	return rt, calls
}

// testFramework is a Framework over rt that keeps its evidence in the returned directory.
func testFramework(t *testing.T, rt *Runtime, logs ...string) (*Framework, string) {
	t.Helper()
	work := t.TempDir()
	ev := filepath.Join(work, "failures")
	return &Framework{
		cfg: Config{WorkDir: work, RunID: "c000001", Tolerances: DefaultTolerances(), EvidenceDir: ev, RuntimeLogs: logs},
		RT:  rt, pods: map[string]*Pod{},
	}, ev
}

func readEvidence(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("evidence file %s: %v", name, err)
	}
	return string(b)
}

// A failed scenario keeps the pod's status, events, container logs, the Notifications about it
// and the runtime's own logs, taken when its Drive failed and before anything removed the pod.
func TestAFailedScenarioKeepsItsPodsEvidenceBeforeTheCleanup(t *testing.T) {
	rt, calls := evidenceRuntime(t)
	logsCmd := filepath.Join(t.TempDir(), "runtime-logs")
	if err := os.WriteFile(logsCmd, []byte("#!/bin/sh\necho \"supervisor log of $2 ($3), asked by $1\"\necho 'to stderr' >&2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, ev := testFramework(t, rt, logsCmd, "ROOT")
	t.Setenv("WEB", f.PodName("web"))
	f.remember("n1")
	f.remember("n2")
	s := NewScenarios(1)
	s.Bind(f)
	sc := s.Add(&Scenario{Short: "web", Pod: NewPod().Main("app", Exit(0)), Drive: func(context.Context, *Pod) error {
		return errors.New("the third Notification started no delivery")
	}})
	ctx := context.Background()
	out := s.Await(ctx, sc)
	if out.Err == nil || out.EvidenceErr != nil {
		t.Fatalf("outcome: err %v, evidence err %v", out.Err, out.EvidenceErr)
	}
	if err := s.Cleanup(ctx, sc); err != nil {
		t.Fatal(err)
	}
	name := f.PodName("web")
	dir := filepath.Join(ev, name)
	if why := readEvidence(t, dir, EvidenceWhy); !strings.Contains(why, "the third Notification started no delivery") || !strings.Contains(why, "uid u1") {
		t.Errorf("why.txt: %q", why)
	}
	if st := readEvidence(t, dir, EvidenceStatus); !strings.Contains(st, `"phase":"Running"`) {
		t.Errorf("status.json is not the status at the failure: %q", st)
	}
	if evs := readEvidence(t, dir, EvidenceEvents); strings.Count(evs, "\n") != 2 || !strings.Contains(evs, "PodStarted") {
		t.Errorf("events.jsonl: %q", evs)
	}
	if _, err := os.Stat(filepath.Join(dir, EvidenceProbe)); err != nil {
		t.Errorf("probe events: %v", err)
	}
	for file, want := range map[string]string{
		"logs-init.txt":                "output of " + name + " init \n",
		"logs-app.txt":                 "output of " + name + " app \n",
		"logs-app-previous.txt":        "output of " + name + " app --previous",
		"notification-n1-status.json":  `"phase":"Running"`,
		"notification-n1-results.json": `"notification":"n1"`,
		EvidenceRuntimeLogs:            "supervisor log of " + name + " (u1), asked by ROOT\nto stderr",
	} {
		if got := readEvidence(t, dir, file); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want it to hold %q", file, got, want)
		}
	}
	for _, absent := range []string{"logs-init-previous.txt", "notification-n2-status.json", EvidenceErrors} {
		if _, err := os.Stat(filepath.Join(dir, absent)); err == nil {
			t.Errorf("%s written", absent)
		}
	}
	// Every evidence verb ran before the pod was removed.
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	rm := strings.Index(log, " rm "+name)
	for _, verb := range []string{" status " + name, " events " + name, " logs " + name + " app", " notification status n1"} {
		if i := strings.Index(log, verb); i < 0 || rm >= 0 && i > rm {
			t.Errorf("%q not run before the rm (calls:\n%s)", verb, log)
		}
	}
	if rm < 0 {
		t.Errorf("the pod was not removed:\n%s", log)
	}
	// Once per pod: a later failing spec of the same scenario does not overwrite it.
	if err := os.WriteFile(filepath.Join(dir, EvidenceWhy), []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.KeepEvidence(ctx, out.Pod, "second"); err != nil || readEvidence(t, dir, EvidenceWhy) != "first" || !f.KeptEvidence(name) {
		t.Errorf("evidence taken twice (err %v)", err)
	}
}

// A scenario that passes keeps nothing, and neither does a run without an evidence directory.
func TestEvidenceIsKeptOnlyForFailuresAndWhenAsked(t *testing.T) {
	rt, _ := evidenceRuntime(t)
	f, ev := testFramework(t, rt)
	s := NewScenarios(1)
	s.Bind(f)
	sc := s.Add(&Scenario{Short: "web", Pod: NewPod().Main("app", Exit(0))})
	ctx := context.Background()
	if out := s.Await(ctx, sc); out.Err != nil {
		t.Fatal(out.Err)
	}
	if _, err := os.Stat(ev); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a passing scenario left evidence: %v", err)
	}
	f.cfg.EvidenceDir = ""
	if err := f.KeepEvidence(ctx, sc.out.Pod, "failed"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ev); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("evidence written without an evidence directory: %v", err)
	}
	_ = s.Cleanup(ctx, sc)
}

// A verb that fails while the evidence is taken is recorded in errors.txt, and the rest is kept.
func TestEvidenceRecordsTheVerbsThatFailed(t *testing.T) {
	rt := fakeRuntime(t, `shift 4
case "$1" in
run) echo '{"name":"'"$4"'","uid":"u1"}' ;;
events) echo '{"error":{"code":"NotFound","message":"pod gone"}}' >&2; exit 4 ;;
status) echo '{"phase":"Failed","containerStatuses":[{"name":"app"}]}' ;;
logs) echo hello ;;
*) ;;
esac
`)
	f, ev := testFramework(t, rt)
	ctx := context.Background()
	p, err := f.Start(ctx, "web", NewPod().Main("app", Exit(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(ctx)
	start := time.Now()
	if err := f.KeepEvidence(ctx, p, "spec failed"); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > evidenceTimeout {
		t.Fatal("too slow")
	}
	dir := filepath.Join(ev, p.Name)
	if e := readEvidence(t, dir, EvidenceErrors); !strings.Contains(e, "events "+p.Name) || !strings.Contains(e, "exit 4") {
		t.Errorf("errors.txt: %q", e)
	}
	if _, err := os.Stat(filepath.Join(dir, EvidenceEvents)); err == nil {
		t.Error("events.jsonl written for a failed verb")
	}
	if got := readEvidence(t, dir, "logs-app.txt"); got != "hello\n" {
		t.Errorf("logs-app.txt = %q", got)
	}
}
