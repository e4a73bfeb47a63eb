package main

import (
	"fmt"
	"slices"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/notify"
)

// turns is where one podspec Notification's time went, read from the times its pod records
// carry (each target's supervisor stamps them): the profile of the fan-out without a profiler.
type turns struct {
	// wall is the Notification's creation → its last pod record final.
	wall time.Duration
	// firstTurn is the creation → the first pod record accepted by its supervisor: the
	// `notify` command, the runner's process start and its first hand-out.
	firstTurn time.Duration
	// accept is the median of a pod record accepted → its container's delivery Running: the
	// supervisor's bookkeeping before the action (the records and events written durably).
	accept time.Duration
	// action is the median of a delivery Running → final: the action (a signal, or an exec
	// with its OCI runtime processes) and the events recorded around it.
	action time.Duration
	// occupancy is the sum over the pods of accepted → final, divided by the parallelism
	// times the first accept → the last final: how full the runner kept its slots (1 = a turn
	// in every slot all the time; the rest is the runner's hand-out and polling).
	occupancy float64
	// gap is the median time from one pod record final to the next accepted one (the records
	// sorted by their acceptance): how long a freed slot waits for its next turn.
	gap time.Duration
}

// readTurns reads the pod records of the Notification obj in dir; parallel is its parallelism.
func readTurns(obj *notify.Object, dir string, parallel int) (turns, error) {
	recs, err := notify.Records(dir)
	if err != nil {
		return turns{}, err
	}
	var t turns
	var accepts, actions []time.Duration
	var busy time.Duration
	var first, last time.Time
	type span struct{ from, to time.Time }
	var spans []span
	for _, r := range recs {
		if r.StartedAt == nil || r.FinishedAt == nil {
			return turns{}, fmt.Errorf("pod record of %s has no start or end", r.Pod)
		}
		from, to := *r.StartedAt, *r.FinishedAt
		spans = append(spans, span{from, to})
		busy += to.Sub(from)
		if first.IsZero() || from.Before(first) {
			first = from
		}
		if to.After(last) {
			last = to
		}
		for _, c := range r.Containers {
			if c.Phase != v1alpha1.NotificationSucceeded || c.StartedAt == nil || c.FinishedAt == nil {
				continue
			}
			accepts = append(accepts, c.StartedAt.Sub(from))
			actions = append(actions, c.FinishedAt.Sub(*c.StartedAt))
		}
	}
	if len(spans) == 0 {
		return turns{}, fmt.Errorf("no pod record in %s", dir)
	}
	t.wall = last.Sub(obj.CreatedAt)
	t.firstTurn = first.Sub(obj.CreatedAt)
	t.accept, t.action = median(accepts), median(actions)
	if d := last.Sub(first); d > 0 && parallel > 0 {
		t.occupancy = float64(busy) / (float64(parallel) * float64(d))
	}
	// A slot freed at a record's end is taken by the record accepted next after it.
	slices.SortFunc(spans, func(a, b span) int { return a.from.Compare(b.from) })
	ends := make([]time.Time, 0, len(spans))
	for _, s := range spans {
		ends = append(ends, s.to)
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	var gaps []time.Duration
	// The k-th end frees the slot that the (k+parallel)-th acceptance takes.
	for k := 0; k+parallel < len(spans); k++ {
		if g := spans[k+parallel].from.Sub(ends[k]); g >= 0 {
			gaps = append(gaps, g)
		}
	}
	t.gap = median(gaps)
	return t, nil
}

// median returns the median of ds (0 when empty); it sorts ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
