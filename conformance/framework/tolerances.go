package framework

import (
	"fmt"
	"strings"
	"time"
)

// Tolerance is a named timing allowance. Its name appears in every failure that used it and in
// the report, so a reader sees which allowance a verdict depended on.
type Tolerance struct {
	Name  string
	Value time.Duration
	// Doc says what the allowance absorbs.
	Doc string
}

// Tolerances are the timing allowances of a run. They widen waits and budgets; they never turn
// an ordering violation into a pass (ordering predicates use no tolerance at all).
type Tolerances struct {
	// ActionLatency: time a runtime may take to act on a decision it has made (start the next
	// container, send a signal) — added to every "within" budget.
	ActionLatency Tolerance
	// StopSlack: how far past the grace budget a stop sequence may end (SIGKILL delivery, reaping,
	// recording).
	StopSlack Tolerance
	// EarlyMargin: how much earlier than a minimum wait (back-off, sleep) an action may happen
	// (clock granularity).
	EarlyMargin Tolerance
	// PodTimeout: how long a test waits for a pod that should finish on its own.
	PodTimeout Tolerance
	// SlowFactor multiplies PodTimeout (for slow machines); recorded in the report.
	SlowFactor float64
}

// DefaultTolerances are the allowances used unless a run overrides them.
func DefaultTolerances() Tolerances {
	return Tolerances{
		ActionLatency: Tolerance{"ActionLatency", 2 * time.Second, "runtime reaction time to a decision it has made"},
		StopSlack:     Tolerance{"StopSlack", 3 * time.Second, "time past the grace budget for SIGKILL, reaping and recording"},
		EarlyMargin:   Tolerance{"EarlyMargin", 100 * time.Millisecond, "clock granularity for minimum waits"},
		PodTimeout:    Tolerance{"PodTimeout", 60 * time.Second, "wait for a pod expected to finish on its own"},
		SlowFactor:    1,
	}
}

// Scaled returns the tolerances with SlowFactor applied to the waits (ActionLatency, StopSlack,
// PodTimeout); EarlyMargin is not scaled, since a slower machine never makes waits shorter.
func (t Tolerances) Scaled(factor float64) Tolerances {
	if factor < 1 {
		factor = 1
	}
	s := t
	s.SlowFactor = factor
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	s.ActionLatency.Value = scale(t.ActionLatency.Value)
	s.StopSlack.Value = scale(t.StopSlack.Value)
	s.PodTimeout.Value = scale(t.PodTimeout.Value)
	return s
}

// String lists the tolerances for the report.
func (t Tolerances) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timing tolerances (slow factor %.2g):\n", t.SlowFactor)
	for _, x := range []Tolerance{t.ActionLatency, t.StopSlack, t.EarlyMargin, t.PodTimeout} {
		fmt.Fprintf(&b, "  %-14s %8v  %s\n", x.Name, x.Value, x.Doc)
	}
	return b.String()
}
