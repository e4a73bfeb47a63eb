package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// stdout runs f and returns what it printed.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	f()
	os.Stdout = old
	w.Close()
	return <-done
}

// A system that fails at one size (podman's 2,048 locks at 1,000 pods) loses none of the other
// systems' figures: its cells are "—", the reason is printed once, and the growth and ratio
// tables leave it out.
func TestAFailedSystemLosesNoOtherFigures(t *testing.T) {
	var refused []error
	for range 3 {
		refused = append(refused, errors.New("podman pod create: exceeded num_locks (2048)"))
	}
	why := summarise(errors.Join(refused...))
	if why != "podman pod create: exceeded num_locks (2048) (and 2 more errors)" {
		t.Errorf("summarise = %q", why)
	}
	ok := func(sys string, d time.Duration) result {
		return result{sys: sys, start: d, signal: d, exec: d, remove: d, pss: 1000, procs: 10}
	}
	small := []result{ok("podspec", time.Second), ok("podman", 2*time.Second)}
	large := []result{ok("podspec", 10*time.Second), {sys: "podman", failed: why}}
	out := stdout(t, func() {
		printSize(1000, large)
		printGrowth([]int{10, 1000}, [][]result{small, large})
	})
	for _, want := range []string{
		"| start all (every program running) | 10s (10ms/pod) | — |",
		"**podman was not measured at 1000 pods**: " + why,
		"| podman, start | 1.00× | — |",
		"- 10 pods, against podman: start 0.50×",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1000 pods, against podman") {
		t.Errorf("a ratio against the system not measured:\n%s", out)
	}
}
