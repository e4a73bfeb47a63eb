package model

import (
	"fmt"
	"strings"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// Rules of an instance's exit status: its fields against what the workload itself reported
// (STAT-001..003), its reason (STAT-006), and the final status against the events (STAT-008).

// neverRan says the instance's end carries neither exitCode nor signal by definition.
func neverRan(in *instance) bool {
	r := in.exited.Reason
	return r == reasonExitStatusLost || r == v1alpha1.ReasonDependencyFailed || (r == v1alpha1.ReasonStartError && in.started == nil)
}

// signalledWith says whether the runtime sent the instance sig before its end.
func signalledWith(in *instance, sig string) bool { return signalBeforeEnd(in, sig) != nil }

// signalBeforeEnd is the first SignalSent of sig to the instance before its end, nil if none.
func signalBeforeEnd(in *instance, sig string) *runtimev1.Event {
	for _, s := range in.signals {
		if s.Signal != nil && s.Signal.Name == sig && before(s, in.exited) {
			return s
		}
	}
	return nil
}

func checkExitFields(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			e := in.exited
			if e == nil {
				continue
			}
			f := func(id, format string, args ...any) {
				out = append(out, Finding{Rule: id, Seq: e.Seq, Container: c.name, Message: fmt.Sprintf("instance %d: ", in.n+1) + fmt.Sprintf(format, args...)})
			}
			switch {
			case neverRan(in):
				if e.ExitCode != nil || e.Signal != nil {
					f(spec.STAT001, "reason %s has an exitCode or a signal, but the process never ran or its status is lost", e.Reason)
				}
				continue
			case e.ExitCode != nil && e.Signal != nil:
				f(spec.STAT002, "ContainerExited has both exitCode %d and signal %s", *e.ExitCode, e.Signal.Name)
				continue
			case e.ExitCode == nil && e.Signal == nil:
				if in.started != nil {
					f(spec.STAT001, "ContainerExited of a started instance has neither exitCode nor signal (reason %s)", e.Reason)
				}
				continue
			}
			if e.Signal != nil {
				if n, ok := v1alpha1.SignalNumber(e.Signal.Name); !ok || n != e.Signal.Number {
					f(spec.STAT002, "signal %s has number %d", e.Signal.Name, e.Signal.Number)
				}
			}
			code, crash, _, ok := in.ended()
			if !ok {
				continue
			}
			// The workload reported how it ends; the runtime reports that, or a signal it sent
			// after the report (SIGKILL at the budget end can come between report and exit).
			switch {
			case code != nil && e.ExitCode != nil && int(*e.ExitCode) != *code:
				f(spec.STAT001, "exitCode %d, but the workload exited with %d", *e.ExitCode, *code)
			case code != nil && e.Signal != nil && !signalledWith(in, e.Signal.Name):
				f(spec.STAT002, "signal %s, but the workload exited with %d and the runtime sent no %s", e.Signal.Name, *code, e.Signal.Name)
			case crash != "" && e.ExitCode != nil:
				f(spec.STAT003, "exitCode %d, but the workload died of %s", *e.ExitCode, crash)
			case crash != "" && e.Signal != nil && e.Signal.Name != crash && !signalledWith(in, e.Signal.Name):
				f(spec.STAT002, "signal %s, but the workload died of %s", e.Signal.Name, crash)
			}
		}
	}
	return out
}

// ownReason is the reason of an end nobody caused but the instance itself (STAT-006's last rows).
func ownReason(e *runtimev1.Event) string {
	switch {
	case e.ExitCode != nil && *e.ExitCode == 0:
		return v1alpha1.ReasonCompleted
	case e.ExitCode != nil:
		return v1alpha1.ReasonError
	}
	return v1alpha1.ReasonSignaled
}

// stopReason is the reason of an instance stopped in a stop sequence of termination reason tr.
func stopReason(tr string) string {
	switch tr {
	case termStopped:
		return v1alpha1.ReasonStopped
	case termCompleted, termFailed:
		return v1alpha1.ReasonStoppedByPolicy
	case termDeadline:
		return v1alpha1.ReasonDeadlineExceeded
	case termEvicted:
		return v1alpha1.ReasonEvicted
	case termForced:
		return v1alpha1.ReasonForced
	}
	return ""
}

// reasons are the reasons STAT-006 allows for an instance's end, or nil when the model does not
// judge it (an end that never ran, a defer's end, a kill the model cannot attribute).
func (rp *replay) reasons(in *instance, tr string) map[string]bool {
	e := in.exited
	if e == nil || in.started == nil || neverRan(in) || in.c.kind == kindDefer || (e.ExitCode == nil) == (e.Signal == nil) {
		return nil
	}
	if rp.updated || (e.Reason == v1alpha1.ReasonOOMKilled && e.Signal != nil && e.Signal.Name == "SIGKILL") {
		return nil // an update's kill, or the kernel's: the events do not say oomKilled
	}
	ok := map[string]bool{}
	if f := rp.forced(); f != nil && before(f, e) {
		ok[v1alpha1.ReasonForced] = true
	}
	yes, sure := rp.stopped(in)
	if yes {
		if r := stopReason(tr); r != "" {
			ok[r] = true
		} else {
			return nil
		}
	}
	if !yes || !sure {
		ok[ownReason(e)] = true
		if in.killedForHealth() {
			ok[reasonUnhealthy] = true
			ok[v1alpha1.ReasonStartError] = true
		}
	}
	return ok
}

func checkReasons(rp *replay) []Finding {
	tr := ""
	if rp.final != nil {
		tr = rp.final.Reason
	}
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.insts {
			ok := rp.reasons(in, tr)
			if ok == nil || ok[in.exited.Reason] {
				continue
			}
			out = append(out, Finding{Rule: spec.STAT006, Seq: in.exited.Seq, Container: c.name,
				Message: fmt.Sprintf("instance %d ended with reason %s (%s); the history gives %s", in.n+1, in.exited.Reason, describeEnd(in), orList(ok))})
		}
	}
	return out
}

// orList is the map's keys, sorted, joined by "or".
func orList[V any](set map[string]V) string { return strings.Join(sortedKeys(set), " or ") }

func checkFinalStatus(rp *replay) []Finding {
	if rp.final == nil {
		return nil
	}
	var out []Finding
	for _, c := range rp.order {
		cs := rp.status(c.name)
		if cs == nil || c.kind == kindDefer {
			continue
		}
		var ended []*instance
		for _, in := range c.insts {
			if in.exited != nil {
				ended = append(ended, in)
			}
		}
		if len(ended) == 0 {
			continue
		}
		if d := diffTerminated(cs.State.Terminated, ended[len(ended)-1].exited); d != "" {
			out = append(out, Finding{Rule: spec.STAT008, Container: c.name, Message: "the final state.terminated does not match the last ContainerExited: " + d})
		}
		if len(ended) > 1 {
			if d := diffTerminated(cs.LastState.Terminated, ended[len(ended)-2].exited); d != "" {
				out = append(out, Finding{Rule: spec.STAT008, Container: c.name, Message: "the final lastState.terminated does not match the previous instance's ContainerExited: " + d})
			}
		}
	}
	return out
}

// diffTerminated says how a terminated state differs from the ContainerExited that recorded it
// ("" when it does not).
func diffTerminated(t *v1alpha1.ContainerStateTerminated, e *runtimev1.Event) string {
	if t == nil {
		return "it is not set"
	}
	var d []string
	if t.Reason != e.Reason {
		d = append(d, fmt.Sprintf("reason %s, event %s", t.Reason, e.Reason))
	}
	if !eqCode(t.ExitCode, e.ExitCode) {
		d = append(d, fmt.Sprintf("exitCode %s, event %s", codeText(t.ExitCode), codeText(e.ExitCode)))
	}
	if (t.Signal == nil) != (e.Signal == nil) || (t.Signal != nil && t.Signal.Name != e.Signal.Name) {
		d = append(d, "the signals differ")
	}
	if e.ContainerID != "" && t.ContainerID != "" && t.ContainerID != e.ContainerID {
		d = append(d, fmt.Sprintf("containerID %s, event %s", t.ContainerID, e.ContainerID))
	}
	return strings.Join(d, "; ")
}

func eqCode(a, b *int32) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func codeText(c *int32) string {
	if c == nil {
		return "unset"
	}
	return fmt.Sprint(*c)
}

func checkExitOrder(rp *replay) []Finding {
	var out []Finding
	var prev *runtimev1.Event
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Type != runtimev1.EventContainerExited || e.Reason == v1alpha1.ReasonDependencyFailed {
			continue
		}
		if prev != nil && e.Time.Before(prev.Time) {
			out = append(out, Finding{Rule: spec.STAT007, Seq: e.Seq, Container: e.Container,
				Message: fmt.Sprintf("ContainerExited finished at %s, before the previous one (#%d, %s)", e.Time.Format("15:04:05.000000"), prev.Seq, prev.Time.Format("15:04:05.000000"))})
		}
		prev = e
	}
	return out
}
