package framework

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

func TestUpdateDecodesTheStatusAndPassesTheArguments(t *testing.T) {
	rt := fakeRuntime(t, `echo "$@" >&2
echo '{"name":"web","uid":"u1","phase":"Running","observedGeneration":1}'
`)
	st, res, err := rt.Update(context.Background(), "web", "/m/new.json")
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.ObservedGeneration != 1 || st.Phase != "Running" {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(string(res.Stderr), "--error-format json update web /m/new.json") {
		t.Fatalf("arguments not passed as the contract says: %s", res.Stderr)
	}
}

func TestARefusedUpdateIsAResultWithFindingsNotAnError(t *testing.T) {
	rt := fakeRuntime(t, `echo '{"error":{"code":"InvalidManifest","message":"no","findings":[{"rule":"UPD-001","severity":"error","path":"spec.containers[0].stopSignal","message":"immutable"}]}}' >&2; exit 1`)
	st, res, err := rt.Update(context.Background(), "web", "/m/new.json")
	if err != nil || st != nil {
		t.Fatalf("Update = %+v, %v; want no status and no error", st, err)
	}
	if res.ExitCode != runtimev1.ExitFailed || res.Error == nil || len(res.Error.Findings) != 1 ||
		res.Error.Findings[0].Rule != "UPD-001" || res.Error.Findings[0].Path != "spec.containers[0].stopSignal" {
		t.Fatalf("result %+v (error %+v)", res, res.Error)
	}
}

func TestUpdateWithUndecodableOutputIsAnError(t *testing.T) {
	rt := fakeRuntime(t, `echo 'not json'`)
	if _, _, err := rt.Update(context.Background(), "web", "/m/new.json"); err == nil {
		t.Fatal("garbage accepted as a PodStatus")
	}
}

func TestGCPassesOlderThanOnlyWhenSetAndDecodesRemoved(t *testing.T) {
	rt := fakeRuntime(t, `echo "$@" >&2
case "$*" in
*--older-than*) echo '{"removed":["a","b"]}' ;;
*) echo '{"removed":[]}' ;;
esac
`)
	removed, res, err := rt.GC(context.Background(), 90*time.Second)
	if err != nil || strings.Join(removed, ",") != "a,b" {
		t.Fatalf("GC(90s) = %v, %v", removed, err)
	}
	if !strings.Contains(string(res.Stderr), "gc --older-than 1m30s") {
		t.Fatalf("arguments: %s", res.Stderr)
	}
	removed, res, err = rt.GC(context.Background(), 0)
	if err != nil || removed == nil || len(removed) != 0 {
		t.Fatalf("GC(0) = %#v, %v; want an empty, non-nil list", removed, err)
	}
	if strings.Contains(string(res.Stderr), "older-than") {
		t.Fatalf("GC(0) passed --older-than: %s", res.Stderr)
	}
}

func TestGCWithoutARemovedArrayOrFailingIsAnError(t *testing.T) {
	rt := fakeRuntime(t, `echo '{}'`)
	if _, _, err := rt.GC(context.Background(), 0); err == nil || !strings.Contains(err.Error(), "removed") {
		t.Fatalf("GC accepted output without removed: %v", err)
	}
	rt = fakeRuntime(t, `echo '{"error":{"code":"IO","message":"no"}}' >&2; exit 3`)
	var ce *CommandError
	if _, _, err := rt.GC(context.Background(), 0); !errors.As(err, &ce) || ce.Result.ExitCode != runtimev1.ExitIO {
		t.Fatalf("GC = %v, want a CommandError with exit 3", err)
	}
}

func TestWithRootAppendsTheGlobalFlagAndKeepsTheOriginal(t *testing.T) {
	rt := fakeRuntime(t, `echo "$@" >&2; echo '{"removed":[]}'`)
	_, res, err := rt.WithRoot("/other").GC(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Stderr), "--root /nowhere --root /other --error-format json gc") {
		t.Fatalf("arguments: %s", res.Stderr)
	}
	if got := strings.Join(rt.Command(), " "); strings.Contains(got, "/other") {
		t.Fatalf("WithRoot changed the original runtime: %s", got)
	}
}
