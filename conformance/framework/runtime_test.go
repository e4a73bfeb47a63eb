package framework

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
