package framework

import (
	"fmt"
	"strings"
	"time"

	"podspec.dev/podspec/spec"
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
// an ordering violation into a pass (ordering predicates use no tolerance at all), and never let
// an action happen early beyond the measurement granularity.
type Tolerances struct {
	// Reaction is the specification's reaction tolerance (docs/spec/ordering.md, TIME-002 and
	// TIME-003: 1 s) times SlowFactor: how late a timed or immediate action may be.
	Reaction Tolerance
	// EarlyMargin is the measurement granularity for "not before" checks (TIME-001): probe
	// events are stamped when they arrive, runtime events when the runtime recorded them.
	EarlyMargin Tolerance
	// PodTimeout: how long a test waits for a pod that should finish on its own.
	PodTimeout Tolerance
	// ExecJitter is how much the delay between a runtime starting an exec'd command (a probe
	// attempt) and that command's report arriving may vary from one attempt to the next: exec
	// start-up (runc exec is a fork, a setns and an exec into a loaded machine) plus one socket
	// round trip. The harness sees attempts only through their reports, so the spacing it
	// measures between two attempts is off by at most this much (HOOK-007); times SlowFactor.
	ExecJitter Tolerance
	// SlowFactor multiplies Reaction, ExecJitter and PodTimeout (a declared slow-machine
	// factor); it is recorded in the report.
	SlowFactor float64
}

// baseExecJitter is ExecJitter at slow factor 1. On a 2-CPU machine running several suites at
// once, the delay between `runc exec` being started and the exec'd probe's report arriving was
// seen to vary between 0.3 s and 2.1 s.
const baseExecJitter = time.Second

// SpecReactionTolerance is the reaction tolerance the specification names.
const SpecReactionTolerance = time.Second

// DefaultTolerances are the allowances used unless a run overrides them.
func DefaultTolerances() Tolerances {
	return Tolerances{
		Reaction:    Tolerance{"Reaction", SpecReactionTolerance, "spec reaction tolerance (" + spec.TIME002 + ", " + spec.TIME003 + ") x slow factor"},
		EarlyMargin: Tolerance{"EarlyMargin", 50 * time.Millisecond, "measurement granularity for not-before checks (" + spec.TIME001 + ")"},
		PodTimeout:  Tolerance{"PodTimeout", 60 * time.Second, "wait for a pod expected to finish on its own"},
		ExecJitter:  Tolerance{"ExecJitter", baseExecJitter, "spread of exec start-up plus report delivery between two probe attempts (" + spec.HOOK007 + ") x slow factor"},
		SlowFactor:  1,
	}
}

// Scaled returns the tolerances with a slow-machine factor applied to Reaction, ExecJitter and
// PodTimeout; EarlyMargin is not scaled, since a slower machine never makes actions
// legitimately earlier.
func (t Tolerances) Scaled(factor float64) Tolerances {
	if factor < 1 {
		factor = 1
	}
	s := t
	s.SlowFactor = factor
	s.Reaction.Value = time.Duration(float64(SpecReactionTolerance) * factor)
	s.ExecJitter.Value = time.Duration(float64(baseExecJitter) * factor)
	s.PodTimeout.Value = time.Duration(float64(t.PodTimeout.Value) * factor / max(t.SlowFactor, 1))
	return s
}

// String lists the tolerances for the report.
func (t Tolerances) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "timing tolerances (slow factor %g):\n", t.SlowFactor)
	for _, x := range []Tolerance{t.Reaction, t.EarlyMargin, t.ExecJitter, t.PodTimeout} {
		fmt.Fprintf(&b, "  %-12s %8v  %s\n", x.Name, x.Value, x.Doc)
	}
	return b.String()
}
