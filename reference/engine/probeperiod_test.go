package engine

import (
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

func TestProbeAttemptsStartPeriodSecondsApartNotAfterThePreviousEnds(t *testing.T) {
	p := &v1alpha1.Probe{PeriodSeconds: 2}
	began := time.Now().Add(-500 * time.Millisecond) // the attempt took 0.5 s
	if d := untilNextAttempt(began, p); d > 1500*time.Millisecond || d < 1400*time.Millisecond {
		t.Errorf("wait after a 0.5 s attempt with period 2 s = %v, want about 1.5 s", d)
	}
	long := time.Now().Add(-3 * time.Second) // the attempt outlasted the period
	if d := untilNextAttempt(long, p); d > 0 {
		t.Errorf("wait after an attempt longer than the period = %v, want none", d)
	}
	if d := untilNextAttempt(time.Now(), &v1alpha1.Probe{}); d < 9*time.Second || d > 10*time.Second {
		t.Errorf("wait with the default period = %v, want about %d s", d, v1alpha1.DefaultProbePeriodSeconds)
	}
}
