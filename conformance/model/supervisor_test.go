package model

import (
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// crashAt records a `crash` issued at ms that returned 10 ms later, and the reference's record
// of the adoption at ms+100.
func (h *hist) crashAt(ms int) *hist {
	at := t0.Add(time.Duration(ms) * time.Millisecond)
	h.crash = append(h.crash, Crash{Issued: at, Returned: at.Add(10 * time.Millisecond)})
	return h.add(ms+100, "SupervisorAdopted", "")
}

// lostA is a pod whose a and b run from 0.1 s (their workloads reporting), whose supervisor is
// lost at 0.5 s, and whose a's end after it is written by end; b exits 0 at 2 s.
func lostA(end func(*hist) *hist) *hist {
	h := twoMains().work(100, "a", probe.TypeStart).work(110, "b", probe.TypeStart).crashAt(500)
	return end(h).work(1990, "b", probe.TypeExit, code(0)).exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodFailed, 3, "a", "Error")
}

func supervisorCases() []modelCase {
	return []modelCase{
		{"an instance that ended on its own after the loss, recorded with its exit code, conforms",
			lostA(func(h *hist) *hist { return h.work(690, "a", probe.TypeExit, code(3)).exit(700, "a", 3, "Error") }), nil},
		{"an instance ended after the loss, its workload reporting no end, breaks SUP-004",
			lostA(func(h *hist) *hist { return h.killed(700, "a", "SIGKILL", "Error") }), []string{spec.SUP004}},
		{"an instance replaced after the loss before any end of it was recorded breaks SUP-004",
			lostA(func(h *hist) *hist {
				return h.start(700, "a").work(710, "a", probe.TypeStart).work(790, "a", probe.TypeExit, code(3)).exit(800, "a", 3, "Error")
			}), []string{spec.HB008, spec.SUP004}},
		{"an end that did not happen recorded after the loss breaks SUP-005",
			lostA(func(h *hist) *hist { return h.work(690, "a", probe.TypeExit, code(3)).exit(700, "a", 0, "Completed") }),
			[]string{spec.SUP005}},
		{"an end lost while nothing supervised the pod, recorded ExitStatusLost, conforms",
			lostA(func(h *hist) *hist {
				return h.work(550, "a", probe.TypeExit, code(3)).add(700, runtimev1.EventContainerExited, "a", func(e *runtimev1.Event) { e.Reason = reasonExitStatusLost })
			}), nil},
		{"an init container run again after the loss breaks SUP-007",
			pod(inits("i"), mains("a")).add(0, runtimev1.EventPodCreated, "").start(50, "i").exit(80, "i", 0, "Completed").
				start(100, "a").crashAt(500).start(700, "i").exit(750, "i", 0, "Completed").
				exit(2000, "a", 0, "Completed").fire(2001, "a").terminating(2002).
				finish(2100, v1alpha1.PodSucceeded, 0, "a", "Completed"), []string{spec.SUP007}},
		{"a gap in the event sequence after the loss breaks SUP-009",
			func() *hist {
				h := lostA(func(h *hist) *hist { return h.work(690, "a", probe.TypeExit, code(3)).exit(700, "a", 3, "Error") })
				for i := range h.ev {
					if h.ev[i].Time.After(t0.Add(600 * time.Millisecond)) {
						h.ev[i].Seq++
					}
				}
				return h
			}(), []string{spec.SUP009}},
	}
}
