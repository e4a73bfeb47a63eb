package framework

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// fakeRuntime writes a shell script that answers verbs the way the test needs.
func fakeRuntime(t *testing.T, body string) *Runtime {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rt")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	rt, err := NewRuntime(path+" --root /nowhere", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestExecPassesTheErrorFormatAndParsesTheErrorReport(t *testing.T) {
	rt := fakeRuntime(t, `echo "$@" >&2
echo 'noise' >&2
echo '{"error":{"code":"NotFound","message":"pod \"x\" not found"}}' >&2
exit 4
`)
	res, err := rt.Exec(context.Background(), "status", "x", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != runtimev1.ExitNotFound || res.Error == nil || res.Error.Code != "NotFound" {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(string(res.Stderr), "--root /nowhere --error-format json status x -o json") {
		t.Fatalf("arguments not passed as the contract says: %s", res.Stderr)
	}
}

func TestVersionDecodesProfiles(t *testing.T) {
	rt := fakeRuntime(t, `echo '{"contractVersion":"1.0","runtime":{"name":"fake","version":"0"},"profiles":["core","defer"]}'`)
	v, _, err := rt.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Has("core") || !v.Has("defer") || v.Has("update") || v.Runtime.Name != "fake" {
		t.Fatalf("version %+v", v)
	}
}

func TestAFailingVerbIsACommandError(t *testing.T) {
	rt := fakeRuntime(t, `echo '{"error":{"code":"Usage","message":"no"}}' >&2; exit 2`)
	_, err := rt.Status(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "exit 2") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseEventsRejectsGarbage(t *testing.T) {
	evs, err := ParseEvents([]byte(`{"seq":1,"type":"PodCreated","time":"2026-11-30T12:00:00Z"}` + "\n\n" + `{"seq":2,"type":"PodStarted","time":"2026-11-30T12:00:01Z"}` + "\n"))
	if err != nil || len(evs) != 2 || evs[1].Seq != 2 {
		t.Fatalf("ParseEvents = %+v, %v", evs, err)
	}
	if _, err := ParseEvents([]byte("{\"seq\":1}\nnot json\n")); err == nil {
		t.Fatal("garbage accepted")
	}
}

func TestNewRuntimeRejectsAnEmptyCommand(t *testing.T) {
	if _, err := NewRuntime("   ", nil); err == nil {
		t.Fatal("empty command accepted")
	}
}

func TestKillAfterKillsACommandStillRunningAndLogsIt(t *testing.T) {
	var log strings.Builder
	path := filepath.Join(t.TempDir(), "rt")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rt, err := NewRuntime(path, &log)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Start(context.Background(), "run", "--detach", "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.KillAfter(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Killed || res.ExitCode != -1 || res.Duration < 50*time.Millisecond || res.Duration > 10*time.Second {
		t.Fatalf("result %+v: want killed by SIGKILL after 50ms", res)
	}
	if !strings.Contains(log.String(), "--error-format json run --detach x.yaml -> killed by the harness (SIGKILL) after") {
		t.Fatalf("command log %q", log.String())
	}
	if !strings.Contains(res.String(), "killed by the harness") {
		t.Fatalf("result renders as %q", res.String())
	}
}

func TestKillAfterReportsACommandThatEndedBeforeTheKill(t *testing.T) {
	rt := fakeRuntime(t, `echo '{"name":"x","uid":"u"}'`)
	c, err := rt.Start(context.Background(), "run", "--detach", "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.KillAfter(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Killed || res.ExitCode != 0 || !strings.Contains(string(res.Stdout), `"uid":"u"`) || res.Duration >= 10*time.Second {
		t.Fatalf("result %+v: want the command's own exit 0 and output, without waiting for the kill", res)
	}
}

func TestStartOfAMissingRuntimeIsAnError(t *testing.T) {
	rt, err := NewRuntime(filepath.Join(t.TempDir(), "missing"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Start(context.Background(), "version"); err == nil {
		t.Fatal("Start of a runtime that does not exist succeeded")
	}
}
