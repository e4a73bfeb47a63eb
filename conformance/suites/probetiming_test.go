package suites

import (
	"testing"
	"time"

	fw "podspec.dev/podspec/conformance/framework"
)

// TestProbeTimingStillTellsDriftAtEverySlowFactor checks the HOOK-007 scenario's arithmetic at
// the slow factors a run may declare: the period grows with the factor (so that an attempt on a
// loaded machine fits in it), while the mean-gap allowance stays below checkTakes, the least a
// runtime that schedules each attempt from the previous one's end drifts per period. Were the
// allowance to reach checkTakes, such a runtime would pass.
func TestProbeTimingStillTellsDriftAtEverySlowFactor(t *testing.T) {
	for _, tc := range []struct {
		factor float64
		period time.Duration
	}{{1, 4 * time.Second}, {1.5, 6 * time.Second}, {2, 8 * time.Second}, {2.2, 9 * time.Second}, {3, 12 * time.Second}} {
		if got := probePeriodFor(tc.factor); got != tc.period {
			t.Errorf("slow factor %g: period %v, want %v", tc.factor, got, tc.period)
		}
		tol := fw.DefaultTolerances().Scaled(tc.factor)
		allowed := tol.ExecJitter.Value/time.Duration(measuredAttempts-1) + tol.EarlyMargin.Value
		if allowed >= checkTakes {
			t.Errorf("slow factor %g: the mean gap may be off by %v, not less than checkTakes %v: a runtime that waits a period after each attempt ends would pass", tc.factor, allowed, checkTakes)
		}
		if tc.period-checkTakes < tol.ExecJitter.Value {
			t.Errorf("slow factor %g: period %v leaves less than ExecJitter %v beside the check", tc.factor, tc.period, tol.ExecJitter.Value)
		}
	}
	if got := probePeriodFor(0.5); got != basePeriod {
		t.Errorf("a slow factor below 1 counts as 1: period %v, want %v", got, basePeriod)
	}
}
