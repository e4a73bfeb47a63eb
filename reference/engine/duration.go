package engine

import (
	"math"
	"time"
)

// maxDuration is the longest time.Duration (about 292 years): a duration the manifest or a stop
// request gives in seconds saturates there instead of wrapping around to a negative one.
const maxDuration = time.Duration(math.MaxInt64)

// secondsOf is n seconds as a Duration, saturated at ±maxDuration: a grace period, a deadline or
// a timeout of 10^10 seconds means "practically never", never an instant in the past.
func secondsOf(n int64) time.Duration {
	const most = int64(maxDuration / time.Second)
	switch {
	case n > most:
		return maxDuration
	case n < -most:
		return -maxDuration
	}
	return time.Duration(n) * time.Second
}

// fractionalSeconds is f seconds as a Duration, saturated like secondsOf (a float64 beyond the
// range of int64 converts to an implementation-defined value in Go, on amd64 the most negative
// one). NaN counts as 0.
func fractionalSeconds(f float64) time.Duration {
	ns := f * float64(time.Second)
	switch {
	case math.IsNaN(ns):
		return 0
	case ns >= float64(maxDuration):
		return maxDuration
	case ns <= -float64(maxDuration):
		return -maxDuration
	}
	return time.Duration(ns)
}

// addDuration is a+b, saturated at ±maxDuration.
func addDuration(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return maxDuration
	case a < 0 && b < 0 && s >= 0:
		return -maxDuration
	}
	return s
}

// stopDeadline is when a stop's grace budget of grace seconds, requested at now, ends.
func stopDeadline(now time.Time, grace int64) time.Time { return now.Add(secondsOf(grace)) }

// activeDeadline is when a pod started at startedAt exceeds activeDeadlineSeconds d.
func activeDeadline(startedAt time.Time, d int64) time.Time { return startedAt.Add(secondsOf(d)) }
