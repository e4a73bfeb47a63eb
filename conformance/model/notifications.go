package model

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of Notifications and of the outcomes of their deliveries, judged on what the harness read
// of each Notification (`notification status` and `notification results`, in read order) beside
// the runtime's events and the processes' own reports: a notifier handler reports its start and
// its end with its exit code, a workload every signal it receives.

// Notification is what a history holds of one Notification that targeted the pod: its spec as
// created, when `notify` was issued (the Notification exists only after that) and returned (zero
// if unknown: it existed by its first read), every read of its status and pod records (Read: when
// the status read began; the records are read after it), and when its removal was issued and had
// returned (zero if it was not removed).
type Notification struct {
	Name              string
	Spec              v1alpha1.NotificationSpec
	Issued, Returned  time.Time
	Views             []NotificationView
	Removing, Removed time.Time
}

// NotificationView is one read of a Notification: its status, then its pod records.
type NotificationView struct {
	Read    time.Time
	Status  v1alpha1.NotificationStatus
	Records []v1alpha1.PodNotificationRecord
}

// maxFailures is the bound of status.failures (NOTIF-017).
const maxFailures = 20

// finalPhase says whether a Notification, record or delivery phase is final.
func finalPhase(p v1alpha1.NotificationPhase) bool {
	return p == v1alpha1.NotificationSucceeded || p == v1alpha1.NotificationFailed || p == v1alpha1.NotificationSkipped
}

// phaseOf is the phase NOTIF-013 and NOTIF-014 give a final whole of these parts (Failed if one
// failed, else Succeeded if one succeeded, else Skipped), and whether every part is final.
func phaseOf(phases []v1alpha1.NotificationPhase) (v1alpha1.NotificationPhase, bool) {
	out, final := v1alpha1.NotificationSkipped, true
	for _, p := range phases {
		final = final && finalPhase(p)
		switch p {
		case v1alpha1.NotificationFailed:
			out = v1alpha1.NotificationFailed
		case v1alpha1.NotificationSucceeded:
			if out != v1alpha1.NotificationFailed {
				out = v1alpha1.NotificationSucceeded
			}
		}
	}
	return out, final
}

// record is the pod record of the history's pod in a view (by name), or nil.
func (rp *replay) record(v *NotificationView) *v1alpha1.PodNotificationRecord {
	for i := range v.Records {
		if v.Records[i].Pod == rp.pod.Metadata.Name {
			return &v.Records[i]
		}
	}
	return nil
}

// deliveryTo is a pod record's delivery to the named container (the last listed), or nil.
func deliveryTo(r *v1alpha1.PodNotificationRecord, container string) *v1alpha1.ContainerDelivery {
	var d *v1alpha1.ContainerDelivery
	for i := range r.Containers {
		if r.Containers[i].Name == container {
			d = &r.Containers[i]
		}
	}
	return d
}

// lastRecord is the pod's record in the last view that holds one, or nil.
func (rp *replay) lastRecord(n *Notification) *v1alpha1.PodNotificationRecord {
	for i := len(n.Views) - 1; i >= 0; i-- {
		if r := rp.record(&n.Views[i]); r != nil {
			return r
		}
	}
	return nil
}

// notifierStarts are the pod's NotifierStarted events of a Notification (in one container, or
// in any with "").
func (rp *replay) notifierStarts(notification, container string) []*runtimev1.Event {
	var out []*runtimev1.Event
	for i := range rp.ev {
		e := &rp.ev[i]
		if e.Type == runtimev1.EventNotifierStarted && e.Notification == notification && (container == "" || e.Container == container) {
			out = append(out, e)
		}
	}
	return out
}

// declaring are the main containers and sidecars that declare a notifier, with its declaration.
func (rp *replay) declaring(notifier string) map[*container]*v1alpha1.Notifier {
	out := map[*container]*v1alpha1.Notifier{}
	for _, c := range rp.order {
		if c.spec == nil || (c.kind != kindMain && c.kind != kindSidecar) {
			continue
		}
		for i := range c.spec.Notifiers {
			if c.spec.Notifiers[i].Name == notifier {
				out[c] = &c.spec.Notifiers[i]
			}
		}
	}
	return out
}

// handlerReports are the reports of a notifier's handler processes in a container: the action
// itself (handler = the notifier's name) and, with descendants, its descendants (name.N).
func handlerReports(events []probe.Event, container, notifier string, descendants bool) []probe.Event {
	var out []probe.Event
	for _, p := range events {
		if p.Container != container || p.Role != probe.RoleNotifier || p.Fallback || p.Received.IsZero() {
			continue
		}
		if p.Handler == notifier || (descendants && strings.HasPrefix(p.Handler, notifier+".")) {
			out = append(out, p)
		}
	}
	return out
}

// ofType are the reports of one type.
func ofType(events []probe.Event, typ string) []probe.Event {
	var out []probe.Event
	for _, p := range events {
		if p.Type == typ {
			out = append(out, p)
		}
	}
	return out
}

// checkNotificationStatus judges each read of every Notification of the history: a final pod
// record's phase from its deliveries (NOTIF-013), a final PreExistingPods Notification's phase
// from its records (NOTIF-014), an AllPods Notification never final (NOTIF-015), the counts
// against the records once the records stayed the same for the reaction tolerance (NOTIF-016),
// at most 20 failures (NOTIF-017), and no PodNotFound record of a selector's target, which
// existed (NOTIF-009). Each rule is reported once per Notification.
func checkNotificationStatus(rp *replay) []Finding {
	var out []Finding
	for _, n := range rp.notifications {
		once := map[string]bool{}
		f := func(id, format string, args ...any) {
			if once[id] {
				return
			}
			once[id] = true
			out = append(out, Finding{Rule: id, Message: fmt.Sprintf("Notification %s: ", n.Name) + fmt.Sprintf(format, args...)})
		}
		allPods := n.Spec.TargetPolicy == v1alpha1.AllPods
		for i := range n.Views {
			v := &n.Views[i]
			for _, r := range v.Records {
				if !finalPhase(r.Phase) || len(r.Containers) == 0 {
					continue
				}
				phases := make([]v1alpha1.NotificationPhase, len(r.Containers))
				for k, d := range r.Containers {
					phases[k] = d.Phase
				}
				if want, final := phaseOf(phases); final && r.Phase != want {
					f(spec.NOTIF013, "the final record of pod %s is %s, its deliveries make it %s", r.Pod, r.Phase, want)
				}
			}
			for _, r := range v.Records {
				// A selector targets pods that exist: one gone before its turn was removed.
				if n.Spec.Selector != nil && r.Reason == v1alpha1.ReasonPodNotFound {
					f(spec.NOTIF009, "the record of pod %s, a target of its selector, is %s PodNotFound: a target removed before its turn is Skipped PodTerminated", r.Pod, r.Phase)
				}
			}
			if len(v.Status.Failures) > maxFailures {
				f(spec.NOTIF017, "status.failures holds %d entries, more than %d", len(v.Status.Failures), maxFailures)
			}
			if !finalPhase(v.Status.Phase) {
				continue
			}
			if allPods {
				f(spec.NOTIF015, "an AllPods Notification has the final phase %s while it exists", v.Status.Phase)
				continue
			}
			phases := make([]v1alpha1.NotificationPhase, len(v.Records))
			for k, r := range v.Records {
				phases[k] = r.Phase
			}
			if want, final := phaseOf(phases); final && v.Status.Phase != want {
				f(spec.NOTIF014, "status.phase is %s, its final pod records make it %s", v.Status.Phase, want)
			}
		}
		if v, since, ok := settled(n.Views, rp.opts.Reaction); ok {
			if got, want := counts(v.Status), countsOf(v.Records); got != want {
				f(spec.NOTIF016, "read at %s, the status counts %s, its pod records (the same since %s) %s",
					v.Read.Format("15:04:05.000"), got, since.Format("15:04:05.000"), want)
			}
		}
	}
	return out
}

// settled is the last view whose pod records had not changed for at least the reaction
// tolerance (the moment NOTIF-016's bound has passed), and the read since which they had not:
// the records of views i..j are the same, so they last changed before view i+1 began, and view
// j's status, read at its beginning, is judged when it began the tolerance after that.
func settled(views []NotificationView, reaction time.Duration) (*NotificationView, time.Time, bool) {
	for j := len(views) - 1; j > 1; j-- {
		i := j
		for i > 0 && reflect.DeepEqual(views[i-1].Records, views[j].Records) {
			i--
		}
		if i+1 < j && views[j].Read.Sub(views[i+1].Read) >= reaction {
			return &views[j], views[i+1].Read, true
		}
	}
	return nil, time.Time{}, false
}

// tally is a Notification's counts: targets, pending, running, succeeded, failed, skipped.
type tally [6]int32

func (t tally) String() string {
	return fmt.Sprintf("targets %d (pending %d, running %d, succeeded %d, failed %d, skipped %d)", t[0], t[1], t[2], t[3], t[4], t[5])
}

func counts(st v1alpha1.NotificationStatus) tally {
	return tally{st.Targets, st.Pending, st.Running, st.Succeeded, st.Failed, st.Skipped}
}

func countsOf(records []v1alpha1.PodNotificationRecord) tally {
	t := tally{int32(len(records))}
	for _, r := range records {
		switch r.Phase {
		case v1alpha1.NotificationPending:
			t[1]++
		case v1alpha1.NotificationRunning:
			t[2]++
		case v1alpha1.NotificationSucceeded:
			t[3]++
		case v1alpha1.NotificationFailed:
			t[4]++
		case v1alpha1.NotificationSkipped:
			t[5]++
		}
	}
	return t
}

// checkPodRecords judges the pod's own record of every Notification: a pod in which nothing
// declares the notifier is Skipped NoMatchingContainers (NOTIF-010); a pod already terminating
// or terminal when `notify` was issued gets no delivery and is Skipped PodTerminating or
// PodTerminated (NOTIF-008, NOTIF-009); a container that declares the notifier is in the record
// (NTF-014), and one that got no delivery is Skipped NotEligible (NOTIF-011).
func checkPodRecords(rp *replay) []Finding {
	var out []Finding
	for _, n := range rp.notifications {
		f := func(id string, seq int64, c, format string, args ...any) {
			out = append(out, Finding{Rule: id, Seq: seq, Container: c, Message: fmt.Sprintf("Notification %s: ", n.Name) + fmt.Sprintf(format, args...)})
		}
		decl := rp.declaring(n.Spec.Notifier)
		r := rp.lastRecord(&n)
		// The pod's state when the Notification was created: terminating or terminal then means
		// so at its turn, which comes after.
		var late string
		switch {
		case rp.finished != nil && rp.finished.Time.Before(n.Issued):
			late = spec.NOTIF009
		case rp.terminating != nil && rp.terminating.Time.Before(n.Issued):
			late = spec.NOTIF008
		}
		if late != "" {
			for _, e := range rp.notifierStarts(n.Name, "") {
				f(late, e.Seq, e.Container, "delivered although the pod was %s when the Notification was created", map[string]string{spec.NOTIF008: "terminating", spec.NOTIF009: "terminal"}[late])
			}
		}
		if r == nil || !finalPhase(r.Phase) {
			continue
		}
		if late != "" {
			allowed := []string{v1alpha1.ReasonPodTerminating, v1alpha1.ReasonPodTerminated}
			if late == spec.NOTIF009 {
				allowed = allowed[1:]
			}
			if r.Phase != v1alpha1.NotificationSkipped || !slices.Contains(allowed, r.Reason) {
				f(late, 0, "", "the pod record is %s %s, want Skipped %s: the pod was %s when the Notification was created",
					r.Phase, r.Reason, strings.Join(allowed, " or "), map[string]string{spec.NOTIF008: "terminating", spec.NOTIF009: "terminal"}[late])
			}
			continue
		}
		if r.Reason == v1alpha1.ReasonPodTerminating || r.Reason == v1alpha1.ReasonPodTerminated {
			continue // a stop or the pod's end came before its turn: the deliveries it holds are judged below
		}
		if len(decl) == 0 {
			if r.Phase != v1alpha1.NotificationSkipped || r.Reason != v1alpha1.ReasonNoMatchingContainers {
				f(spec.NOTIF010, 0, "", "no main container or sidecar declares notifier %s, but the pod record is %s %s", n.Spec.Notifier, r.Phase, r.Reason)
			}
			continue
		}
		for _, c := range rp.order {
			if decl[c] == nil {
				continue
			}
			d := deliveryTo(r, c.name)
			starts := rp.notifierStarts(n.Name, c.name)
			switch {
			case d == nil:
				f(spec.NTF014, 0, c.name, "%s declares notifier %s, but the final pod record has no delivery for it", c.name, n.Spec.Notifier)
			case len(starts) == 0 && d.Phase == v1alpha1.NotificationSkipped && d.Reason != v1alpha1.ReasonNotEligible &&
				d.Reason != v1alpha1.ReasonPodTerminating && d.Reason != v1alpha1.ReasonPodTerminated:
				f(spec.NOTIF011, 0, c.name, "a delivery skipped without running is %s, want NotEligible (or the pod's stop)", d.Reason)
			}
		}
	}
	return out
}

// checkDeliveryOutcomes judges each final delivery to the pod against what happened: a signal
// action recorded Succeeded reached the workload (NTF-006); an exec action's recorded outcome is
// its handler's reported exit (NTF-007); a HandlerTimeout came no sooner than timeoutSeconds and
// no process of the action reported its end after it (NTF-008); a delivery whose instance exited
// under it is Failed PodTerminated or ContainerRestarted by the pod's state then (NTF-013); a
// running exec action's delivery was persisted Running first (NTF-011).
func checkDeliveryOutcomes(rp *replay) []Finding {
	var out []Finding
	for _, n := range rp.notifications {
		r := rp.lastRecord(&n)
		if r == nil {
			continue
		}
		decl := rp.declaring(n.Spec.Notifier)
		for i := range r.Containers {
			d := &r.Containers[i]
			c := rp.byName[d.Name]
			if c == nil || decl[c] == nil || !finalPhase(d.Phase) {
				continue
			}
			starts := rp.notifierStarts(n.Name, c.name)
			if len(starts) != 1 {
				continue // not run (skipped), or NTF-010 judges it
			}
			out = append(out, rp.judgeDelivery(&n, c, decl[c], d, starts[0])...)
			out = append(out, rp.persistedRunning(&n, c, decl[c], starts[0])...)
		}
	}
	return out
}

// persistedRunning judges NTF-011 on an exec delivery whose handler reported its start: every
// read of the Notification that began after that report arrived shows the delivery Running with
// the instance's containerID, or final (its records are read after its status).
func (rp *replay) persistedRunning(n *Notification, c *container, nf *v1alpha1.Notifier, start *runtimev1.Event) []Finding {
	own := ofType(handlerReports(rp.probe, c.name, nf.Name, false), probe.TypeHandlerStart)
	if nf.Action.Exec == nil || len(own) != 1 || len(rp.notifierStartsOf(c.name, nf.Name)) != 1 {
		return nil
	}
	var id string
	if in := c.instanceAt(start); in != nil {
		id = in.containerID()
	}
	for i := range n.Views {
		v := &n.Views[i]
		if !v.Read.After(own[0].Received) {
			continue
		}
		var d *v1alpha1.ContainerDelivery
		if r := rp.record(v); r != nil {
			d = deliveryTo(r, c.name)
		}
		switch {
		case d == nil:
			return []Finding{{Rule: spec.NTF011, Seq: start.Seq, Container: c.name, Message: fmt.Sprintf(
				"Notification %s read at %s, after its action reported its start (%s), has no delivery to %s",
				n.Name, v.Read.Format("15:04:05.000"), own[0].Received.Format("15:04:05.000"), c.name)}}
		case d.Phase == v1alpha1.NotificationRunning && id != "" && d.ContainerID != id,
			d.Phase != v1alpha1.NotificationRunning && !finalPhase(d.Phase):
			return []Finding{{Rule: spec.NTF011, Seq: start.Seq, Container: c.name, Message: fmt.Sprintf(
				"Notification %s read at %s, after its action reported its start (%s), shows the delivery %s with containerID %q (the instance: %q)",
				n.Name, v.Read.Format("15:04:05.000"), own[0].Received.Format("15:04:05.000"), d.Phase, d.ContainerID, id)}}
		}
	}
	return nil
}

// judgeDelivery judges one delivery that ran (its NotifierStarted is start).
func (rp *replay) judgeDelivery(n *Notification, c *container, nf *v1alpha1.Notifier, d *v1alpha1.ContainerDelivery, start *runtimev1.Event) []Finding {
	var out []Finding
	f := func(id, format string, args ...any) {
		out = append(out, Finding{Rule: id, Seq: start.Seq, Container: c.name,
			Message: fmt.Sprintf("delivery of %s (notifier %s), recorded %s %s: ", n.Name, nf.Name, d.Phase, d.Reason) + fmt.Sprintf(format, args...)})
	}
	in := c.instanceAt(start)
	end := rp.notifierFinished(c, n.Name, start)
	// NTF-013: the instance ended while the action ran (between its start and its end).
	if in != nil && in.exited != nil && in.exited.Seq > start.Seq && (end == nil || in.exited.Seq < end.Seq) {
		if nf.Action.Exec != nil && len(ofType(handlerReports(rp.probe, c.name, nf.Name, false), probe.TypeHandlerEnd)) > 0 {
			return out // the action may have ended first: its outcome may be its own
		}
		var allowed []string
		switch {
		case before(rp.terminating, in.exited):
			allowed = []string{v1alpha1.ReasonPodTerminated}
		case rp.terminating == nil || before(end, rp.terminating):
			allowed = []string{v1alpha1.ReasonContainerRestarted}
		default:
			allowed = []string{v1alpha1.ReasonPodTerminated, v1alpha1.ReasonContainerRestarted}
		}
		if d.Phase != v1alpha1.NotificationFailed || !slices.Contains(allowed, d.Reason) {
			f(spec.NTF013, "its instance exited (#%d) while the action ran: want Failed %s", in.exited.Seq, strings.Join(allowed, " or "))
		}
		return out
	}
	if nf.Action.Signal != "" {
		if d.Phase == v1alpha1.NotificationSucceeded && in != nil && len(in.work) > 0 && !in.receivedSignal(nf.Action.Signal) {
			f(spec.NTF006, "instance %d's process reported no %s", in.n+1, nf.Action.Signal)
		}
		return out
	}
	if nf.Action.Exec == nil {
		return out
	}
	own := handlerReports(rp.probe, c.name, nf.Name, false)
	if len(rp.notifierStartsOf(c.name, nf.Name)) != 1 || len(ofType(own, probe.TypeHandlerStart)) != 1 {
		return out // the handler's reports cannot be told apart between deliveries
	}
	timeout := time.Duration(v1alpha1.DefaultNotifierTimeoutSeconds) * time.Second
	if nf.TimeoutSeconds != nil {
		timeout = time.Duration(*nf.TimeoutSeconds) * time.Second
	}
	if d.Reason == v1alpha1.ReasonHandlerTimeout {
		if d.StartedAt != nil && d.FinishedAt != nil && d.FinishedAt.Sub(*d.StartedAt) < timeout-rp.opts.EarlyMargin {
			f(spec.NTF008, "killed %v after its start, before its timeoutSeconds (%v)", d.FinishedAt.Sub(*d.StartedAt), timeout)
		}
		if d.FinishedAt != nil {
			for _, p := range ofType(handlerReports(rp.probe, c.name, nf.Name, true), probe.TypeHandlerEnd) {
				if p.Received.After(d.FinishedAt.Add(rp.opts.Reaction)) {
					f(spec.NTF008, "%s reported its end at %s, after the action was killed for its timeout (%s): its process tree was not killed",
						p.Handler, p.Received.Format("15:04:05.000"), d.FinishedAt.Format("15:04:05.000"))
					break
				}
			}
		}
		return out
	}
	ends := ofType(own, probe.TypeHandlerEnd)
	if len(ends) != 1 || ends[0].ExitCode == nil {
		return out
	}
	code := *ends[0].ExitCode
	switch {
	case code == 0 && d.Phase != v1alpha1.NotificationSucceeded:
		f(spec.NTF007, "the command reported exiting 0: want Succeeded")
	case code != 0 && (d.Phase != v1alpha1.NotificationFailed || d.Reason != v1alpha1.ReasonHandlerFailed || d.ExitCode == nil || int(*d.ExitCode) != code):
		f(spec.NTF007, "the command reported exiting %d: want Failed HandlerFailed with exitCode %d", code, code)
	}
	return out
}

// notifierFinished is the container's first NotifierFinished of the Notification after its
// NotifierStarted start: the end of that delivery's action (nil if none).
func (rp *replay) notifierFinished(c *container, notification string, start *runtimev1.Event) *runtimev1.Event {
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == runtimev1.EventNotifierFinished && e.Container == c.name && e.Notification == notification && e.Seq > start.Seq {
			return e
		}
	}
	return nil
}

// notifierStartsOf are the pod's NotifierStarted events of a notifier in a container.
func (rp *replay) notifierStartsOf(container, notifier string) []*runtimev1.Event {
	var out []*runtimev1.Event
	for i := range rp.ev {
		if e := &rp.ev[i]; e.Type == runtimev1.EventNotifierStarted && e.Container == container && e.Notifier == notifier {
			out = append(out, e)
		}
	}
	return out
}

// receivedSignal says whether the instance's workload reported receiving the signal.
func (in *instance) receivedSignal(name string) bool {
	for _, p := range in.work {
		if p.Type == probe.TypeSignal && p.Signal == name {
			return true
		}
	}
	return false
}

// checkNotificationRuns judges the runs of a Notification's deliveries against its parallelism
// and its removal: deliveries running in more target pods at once than spec.parallelism, by the
// runtime's own delivery times in the last read, an overlap shorter than EarlyMargin not counted
// (NOTIF-006); a delivery to the pod that started once the removal had returned (NOTIF-020); an
// exec delivery running when the removal was issued that ended sooner than its timeoutSeconds,
// its instance still running, without its handler reporting an end (NOTIF-019).
func checkNotificationRuns(rp *replay) []Finding {
	var out []Finding
	for _, n := range rp.notifications {
		if p := n.Spec.Parallelism; p != nil && *p > 0 && len(n.Views) > 0 {
			if most, at := mostAtOnce(n.Views[len(n.Views)-1].Records, rp.opts.EarlyMargin); most > int(*p) {
				out = append(out, Finding{Rule: spec.NOTIF006, Message: fmt.Sprintf("Notification %s: deliveries ran in %d target pods at once at %s (its records), spec.parallelism is %d",
					n.Name, most, at.Format("15:04:05.000"), *p)})
			}
		}
		if n.Removed.IsZero() {
			continue
		}
		decl := rp.declaring(n.Spec.Notifier)
		for _, e := range rp.notifierStarts(n.Name, "") {
			if e.Time.After(n.Removed) {
				out = append(out, Finding{Rule: spec.NOTIF020, Seq: e.Seq, Container: e.Container, Message: fmt.Sprintf(
					"a delivery of Notification %s started at %s, after its removal returned (%s)", n.Name, e.Time.Format("15:04:05.000"), n.Removed.Format("15:04:05.000"))})
				continue
			}
			c := rp.byName[e.Container]
			if c == nil || decl[c] == nil || decl[c].Action.Exec == nil {
				continue
			}
			if f := rp.interrupted(&n, c, decl[c], e); f != nil {
				out = append(out, *f)
			}
		}
	}
	return out
}

// interrupted is the NOTIF-019 finding of an exec delivery (its NotifierStarted e) that ran
// when its Notification's removal was issued and was cut short by it, or nil.
func (rp *replay) interrupted(n *Notification, c *container, nf *v1alpha1.Notifier, e *runtimev1.Event) *Finding {
	end := rp.notifierFinished(c, n.Name, e)
	if end == nil || !e.Time.Before(n.Removing) || end.Time.Before(n.Removing) {
		return nil // it did not run across the removal
	}
	if in := c.instanceAt(e); in == nil || before(in.exited, end) {
		return nil // its instance ended under it (NTF-013)
	}
	if end.Time.Sub(e.Time) >= time.Duration(*nf.TimeoutSeconds)*time.Second-rp.opts.EarlyMargin {
		return nil // it may have timed out (NTF-008)
	}
	reps := handlerReports(rp.probe, c.name, nf.Name, false)
	started := false
	for _, p := range reps {
		switch {
		case p.Type == probe.TypeHandlerStart && !p.Received.Before(e.Time) && !p.Received.After(end.Time.Add(rp.opts.Reaction)):
			started = true
		case p.Type == probe.TypeHandlerEnd && !p.Received.Before(e.Time) && !p.Received.After(end.Time.Add(rp.opts.Reaction)):
			return nil // the action ended on its own
		}
	}
	if !started {
		return nil // the action's reports do not say it ran
	}
	return &Finding{Rule: spec.NOTIF019, Seq: e.Seq, Container: c.name, Message: fmt.Sprintf(
		"the delivery of Notification %s ran when its removal was issued (%s) and ended at #%d, %v after its start, before its timeoutSeconds, its action reporting no end: the removal interrupted it",
		n.Name, n.Removing.Format("15:04:05.000"), end.Seq, end.Time.Sub(e.Time))}
}

// mostAtOnce is the largest number of pod records with a delivery running at one moment, by the
// deliveries' startedAt and finishedAt, and that moment; overlaps shorter than margin are not
// counted, and a delivery without a finishedAt runs until the end.
func mostAtOnce(records []v1alpha1.PodNotificationRecord, margin time.Duration) (int, time.Time) {
	type span struct{ from, to time.Time }
	var spans []span
	for _, r := range records {
		var s span
		for _, d := range r.Containers {
			if d.StartedAt == nil {
				continue
			}
			to := time.Unix(1<<40, 0)
			if d.FinishedAt != nil {
				to = *d.FinishedAt
			}
			if s.from.IsZero() || d.StartedAt.Before(s.from) {
				s.from = *d.StartedAt
			}
			if to.After(s.to) {
				s.to = to
			}
		}
		if !s.from.IsZero() {
			spans = append(spans, s)
		}
	}
	most, at := 0, time.Time{}
	for _, a := range spans {
		k := 0
		for _, b := range spans {
			if !b.from.After(a.from) && b.to.Sub(a.from) > margin {
				k++
			}
		}
		if k > most {
			most, at = k, a.from
		}
	}
	return most, at
}
