package engine

import (
	"math"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// Every duration the runtime computes from seconds saturates: a huge grace period, deadline,
// timeout or back-off means "practically never", never a moment in the past (issue #15, class 2).

func TestSecondsSaturateInsteadOfWrapping(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want time.Duration
	}{
		{0, 0}, {30, 30 * time.Second}, {-5, -5 * time.Second},
		{int64(maxDuration / time.Second), time.Duration(int64(maxDuration/time.Second)) * time.Second},
		{int64(maxDuration/time.Second) + 1, maxDuration}, {1e10, maxDuration}, {math.MaxInt64, maxDuration},
		{math.MinInt64, -maxDuration},
	} {
		if got := secondsOf(c.n); got != c.want {
			t.Errorf("secondsOf(%d) = %v, want %v", c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		f    float64
		want time.Duration
	}{
		{0.5, 500 * time.Millisecond}, {1e10, maxDuration}, {math.Inf(1), maxDuration}, {1e300, maxDuration},
		{-1e300, -maxDuration}, {math.NaN(), 0},
	} {
		if got := fractionalSeconds(c.f); got != c.want {
			t.Errorf("fractionalSeconds(%g) = %v, want %v", c.f, got, c.want)
		}
	}
	if got := addDuration(maxDuration-time.Second, 2*time.Second); got != maxDuration {
		t.Errorf("addDuration past the largest duration = %v", got)
	}
	if got := addDuration(-maxDuration, -time.Second); got != -maxDuration {
		t.Errorf("addDuration past the smallest duration = %v", got)
	}
	if got := addDuration(3*time.Second, -time.Second); got != 2*time.Second {
		t.Errorf("addDuration(3s, -1s) = %v", got)
	}
}

func TestStopBudgetAndActiveDeadlineOfHugeSecondsLieInTheFarFuture(t *testing.T) {
	now := time.Now()
	century := now.Add(100 * 365 * 24 * time.Hour)
	for _, n := range []int64{1e10, math.MaxInt64} {
		if d := stopDeadline(now, n); !d.After(century) {
			t.Errorf("stop budget of %d s ends %v, want beyond %v (a wrapped budget SIGKILLs at once)", n, d, century)
		}
		if d := activeDeadline(now, n); !d.After(century) {
			t.Errorf("activeDeadlineSeconds %d ends %v, want beyond %v (a wrapped deadline is DeadlineExceeded at once)", n, d, century)
		}
	}
	if d := stopDeadline(now, 30); d.Sub(now) != 30*time.Second {
		t.Errorf("stop budget of 30 s ends %v after the request", d.Sub(now))
	}
}

func TestBackoffAndResetOfHugeSecondsSaturate(t *testing.T) {
	b := &v1alpha1.Backoff{InitialSeconds: ptrTo(1e10), Factor: ptrTo(1e300), MaxSeconds: ptrTo(1e308)}
	for _, k := range []int{0, 1, 5} {
		if d := backoffDelay(b, k); d != maxDuration {
			t.Errorf("back-off %d of initial 1e10 s = %v, want the largest duration", k, d)
		}
	}
	small := &v1alpha1.Backoff{InitialSeconds: ptrTo(0.5), Factor: ptrTo(2.0), MaxSeconds: ptrTo(3.0)}
	if d := backoffDelay(small, 2); d != 2*time.Second {
		t.Errorf("back-off 2 of 0.5 s ×2 = %v, want 2s", d)
	}
	if d := backoffDelay(small, 10); d != 3*time.Second {
		t.Errorf("back-off 10 capped at 3 s = %v", d)
	}
}

func TestDeferLimitOfHugeTimeoutIsTheBudgetEnd(t *testing.T) {
	now := time.Now()
	end := now.Add(40 * time.Second)
	for _, timeout := range []int64{1e10, math.MaxInt64} {
		e := &Engine{st: &store.State{Stop: &store.StopState{RequestedAt: now, Deadline: end}}}
		e.st.Pod.Spec.DeferContainers = []v1alpha1.DeferContainer{{Phase: v1alpha1.DeferAfterStop, TimeoutSeconds: ptrTo(timeout)}}
		s := &slot{e: e, kind: KindDefer, index: 0}
		if got := e.deferLimitLocked(s, &now); !got.Equal(end) {
			t.Errorf("limit of a defer with timeoutSeconds %d = %v, want the budget end %v (a wrapped timeout kills it at once)", timeout, got, end)
		}
	}
}

func TestEndedWaitUnderAHugeBudgetIsAMinute(t *testing.T) {
	far := time.Now().Add(maxDuration)
	if got := endedWait(2*time.Second, far); got != time.Minute {
		t.Errorf("wait under a budget ending %v = %v, want a minute (a wrapped sum gives 2 s)", far, got)
	}
	if got := endedWait(2*time.Second, time.Now().Add(-time.Hour)); got != 2*time.Second {
		t.Errorf("wait under a budget that ended = %v, want 2s", got)
	}
}

func ptrTo[T any](v T) *T { return &v }
