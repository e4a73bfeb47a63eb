package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEmitDeliversStampedEventsInArrivalOrder(t *testing.T) {
	dir := t.TempDir()
	srv, err := Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	before := time.Now()
	for i := 1; i <= 3; i++ {
		if err := Emit(srv.Path(), Event{Container: "app", Type: TypeStart, Seq: i}); err != nil {
			t.Fatalf("emit %d: %v", i, err)
		}
	}
	evs := srv.Events()
	if len(evs) != 3 {
		t.Fatalf("got %d events, want 3: %+v", len(evs), evs)
	}
	for i, ev := range evs {
		if ev.Seq != i+1 {
			t.Errorf("event %d has seq %d, want %d", i, ev.Seq, i+1)
		}
		if ev.Received.Before(before) || ev.Received.After(time.Now()) {
			t.Errorf("event %d stamped %v, outside the test's window", i, ev.Received)
		}
		if i > 0 && ev.Received.Before(evs[i-1].Received) {
			t.Errorf("event %d stamped before event %d", i, i-1)
		}
		if ev.Fallback {
			t.Errorf("event %d marked fallback although it came through the socket", i)
		}
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("server error: %v", err)
	}
}

func TestEmitIsStampedBeforeItReturns(t *testing.T) {
	dir := t.TempDir()
	srv, err := Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := Emit(srv.Path(), Event{Type: TypeExit}); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	evs := srv.Events()
	if len(evs) != 1 || evs[0].Received.After(after) {
		t.Fatalf("event not stamped before Emit returned: %+v (returned at %v)", evs, after)
	}
}

func TestEmitFallsBackToAFileWhenTheSocketIsMissing(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "events.sock")
	if err := Emit(sock, Event{Container: "a", Type: TypeStart, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if err := Emit(sock, Event{Container: "a", Type: TypeExit, Seq: 2}); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadFallback(filepath.Join(dir, FallbackFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Type != TypeStart || evs[1].Type != TypeExit {
		t.Fatalf("fallback events = %+v", evs)
	}
	for _, ev := range evs {
		if !ev.Fallback || !ev.Received.IsZero() {
			t.Errorf("fallback event %+v must be marked and unstamped", ev)
		}
	}
}

func TestServerIncludesFallbackEventsAfterSocketEvents(t *testing.T) {
	dir := t.TempDir()
	srv, err := Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := os.WriteFile(filepath.Join(dir, FallbackFile), []byte(`{"container":"x","type":"start","seq":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Emit(srv.Path(), Event{Container: "y", Type: TypeStart, Seq: 1}); err != nil {
		t.Fatal(err)
	}
	evs := srv.Events()
	if len(evs) != 2 || evs[0].Container != "y" || evs[1].Container != "x" || !evs[1].Fallback {
		t.Fatalf("events = %+v", evs)
	}
}

func TestServerReportsMalformedEvents(t *testing.T) {
	dir := t.TempDir()
	srv, err := Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	if err := sendLine(srv.Path(), []byte("not json\n")); err == nil {
		t.Fatal("a malformed event was acknowledged")
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("Err() = %v, want a malformed-event error", err)
	}
}

func TestWaitReturnsOnceTheConditionHolds(t *testing.T) {
	dir := t.TempDir()
	srv, err := Listen(filepath.Join(dir, "events.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(50 * time.Millisecond)
		_ = Emit(srv.Path(), Event{Type: TypeExit})
	}()
	err = srv.Wait(ctx, func(evs []Event) bool { return len(evs) == 1 })
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if err := srv.Wait(short, func(evs []Event) bool { return len(evs) == 2 }); err == nil {
		t.Fatal("Wait returned nil for a condition that never held")
	}
}
