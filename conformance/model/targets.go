package model

import (
	"fmt"
	"slices"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// Rules of a Notification's targets (NOTIF-002 … NOTIF-005), judged on its pod records against
// the pods the harness created: which existed when the Notification was created, which were
// created after it, and their labels as submitted and as updates set them. Where the history
// leaves the decision open (a pod created or removed, or relabelled, while `notify` ran), the
// model accepts every reading.

// PodLife is what a history holds of one pod the harness created: its name and UID, its labels as
// submitted, when the `run` that created it was issued and returned (zero when unknown), when its
// removal was issued and returned (zero if it was not removed), and the harness's updates of it.
type PodLife struct {
	Name, UID         string
	Labels            map[string]string
	Run, Ran          time.Time
	Removing, Removed time.Time
	Updates           []Update
}

// existence is what a history says of a pod at a Notification's creation.
type existence int

const (
	existed existence = iota // created before `notify` was issued, not removed before it returned
	absent                   // never created, created after `notify` returned, or removed before it was issued
	unsure                   // the history leaves it open
)

// at is what the history says of the pod's existence at some moment of [from, to]; l may be nil
// (a name the harness never created a pod under).
func (l *PodLife) at(from, to time.Time) existence {
	switch {
	case l == nil, l.Run.After(to), !l.Removed.IsZero() && l.Removed.Before(from):
		return absent
	case l.Ran.IsZero():
		return unsure
	case l.Ran.Before(from) && (l.Removing.IsZero() || l.Removing.After(to)):
		return existed
	}
	return unsure
}

// labelsDuring are the pod's label sets that may have been in force at some moment of
// [from, to]: those it was submitted with until its first accepted update returned, then each
// accepted update's from when it was issued until the next one returned.
func (l *PodLife) labelsDuring(from, to time.Time) []map[string]string {
	var accepted []*Update
	for i := range l.Updates {
		if u := &l.Updates[i]; u.Accepted && u.Pod != nil {
			accepted = append(accepted, u)
		}
	}
	var out []map[string]string
	for k := 0; k <= len(accepted); k++ {
		labels, since := l.Labels, time.Time{}
		if k > 0 {
			labels, since = accepted[k-1].Pod.Metadata.Labels, accepted[k-1].Issued
		}
		if since.After(to) {
			break
		}
		if k < len(accepted) && accepted[k].Returned.Before(from) {
			continue
		}
		out = append(out, labels)
	}
	return out
}

// everLabels are every label set the pod had.
func (l *PodLife) everLabels() []map[string]string {
	return l.labelsDuring(time.Time{}, time.Unix(1<<40, 0))
}

// matches says whether a label selector selects labels: every matchLabels pair and every
// expression holds (a nil selector selects nothing).
func matches(sel *v1alpha1.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		in := ok && slices.Contains(r.Values, v)
		switch r.Operator {
		case v1alpha1.SelectorIn:
			if !in {
				return false
			}
		case v1alpha1.SelectorNotIn:
			if in {
				return false
			}
		case v1alpha1.SelectorExists:
			if !ok {
				return false
			}
		case v1alpha1.SelectorDoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}

// countMatching is how many of the label sets the selector selects.
func countMatching(sel *v1alpha1.LabelSelector, sets []map[string]string) int {
	n := 0
	for _, s := range sets {
		if matches(sel, s) {
			n++
		}
	}
	return n
}

// selectable says whether a selector selects the judged pod's labels, as submitted or as an
// update set them.
func (rp *replay) selectable(sel *v1alpha1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	sets := []map[string]string{rp.pod.Metadata.Labels}
	for _, u := range rp.updates {
		if u.Accepted && u.Pod != nil {
			sets = append(sets, u.Pod.Metadata.Labels)
		}
	}
	return countMatching(sel, sets) > 0
}

// created is when a Notification surely existed: when `notify` returned, else its first read.
func (n *Notification) created() (time.Time, bool) {
	switch {
	case !n.Returned.IsZero():
		return n.Returned, true
	case len(n.Views) > 0:
		return n.Views[0].Read, true
	}
	return time.Time{}, false
}

// records are the pod records of every read of a Notification, the last read of each pod name.
func (n *Notification) records() map[string]*v1alpha1.PodNotificationRecord {
	out := map[string]*v1alpha1.PodNotificationRecord{}
	for i := range n.Views {
		for k := range n.Views[i].Records {
			r := &n.Views[i].Records[k]
			out[r.Pod] = r
		}
	}
	return out
}

// checkTargets judges the pod records of every Notification of the history against the pods the
// harness created (History.Pods): a name in spec.pods that named no pod at the Notification's
// creation has a record Skipped PodNotFound (NOTIF-005); a pod named or selected that existed
// then is a target, by its UID, and nothing else is a target of a PreExistingPods Notification
// (NOTIF-003); a pod created later that matches is a target of an AllPods Notification created
// before it (NOTIF-004); a pod whose labels matched only after it was decided is no target
// (NOTIF-002). A target's missing record is judged on the last read, once the Notification is
// final or, for a pod created later, the reaction tolerance after its creation.
func checkTargets(rp *replay) []Finding {
	if rp.lives == nil {
		return nil
	}
	var out []Finding
	for i := range rp.notifications {
		n := &rp.notifications[i]
		to, ok := n.created()
		if !ok || len(n.Views) == 0 {
			continue
		}
		f := func(id, format string, args ...any) {
			out = append(out, Finding{Rule: id, Message: fmt.Sprintf("Notification %s: ", n.Name) + fmt.Sprintf(format, args...)})
		}
		last := &n.Views[len(n.Views)-1]
		if len(n.Spec.Pods) > 0 {
			rp.judgeNamed(n, n.Issued, to, last, f)
		} else if n.Spec.Selector != nil {
			rp.judgeSelected(n, n.Issued, to, last, f)
		}
	}
	return out
}

// inLast is the last read's record of a pod name, or nil.
func inLast(last *NotificationView, pod string) *v1alpha1.PodNotificationRecord {
	for i := range last.Records {
		if last.Records[i].Pod == pod {
			return &last.Records[i]
		}
	}
	return nil
}

// judgeNamed judges the records of a Notification by name, created in [from, to].
func (rp *replay) judgeNamed(n *Notification, from, to time.Time, last *NotificationView, f func(id, format string, args ...any)) {
	final := finalPhase(last.Status.Phase)
	recs := n.records()
	for _, name := range slices.Compact(slices.Sorted(slices.Values(n.Spec.Pods))) {
		l := rp.lives[name]
		r := recs[name]
		switch l.at(from, to) {
		case absent:
			switch {
			case r == nil && final:
				f(spec.NOTIF005, "%s named no pod when the Notification was created, and the final Notification's records hold none of it: want one Skipped PodNotFound", name)
			case r != nil && (r.Phase != v1alpha1.NotificationSkipped || r.Reason != v1alpha1.ReasonPodNotFound || r.PodUID != ""):
				f(spec.NOTIF005, "%s named no pod when the Notification was created, but its record is %s %s with podUID %q: want Skipped PodNotFound, no UID", name, r.Phase, r.Reason, r.PodUID)
			}
		case existed:
			switch {
			case r == nil && final:
				f(spec.NOTIF003, "pod %s existed when the Notification was created, but the final Notification's records hold none of it", name)
			case r != nil && r.PodUID != l.UID:
				f(spec.NOTIF003, "pod %s (UID %s) existed when the Notification was created, but its record has podUID %q (%s %s)", name, l.UID, r.PodUID, r.Phase, r.Reason)
			}
		}
	}
	if n.Spec.TargetPolicy == v1alpha1.AllPods {
		return
	}
	for name := range recs {
		if !slices.Contains(n.Spec.Pods, name) {
			f(spec.NOTIF003, "a record of pod %s, which spec.pods does not name", name)
		}
	}
}

// judgeSelected judges the records of a Notification by selector, created in [from, to].
func (rp *replay) judgeSelected(n *Notification, from, to time.Time, last *NotificationView, f func(id, format string, args ...any)) {
	sel := n.Spec.Selector
	allPods := n.Spec.TargetPolicy == v1alpha1.AllPods
	for name, r := range n.records() {
		l := rp.lives[name]
		if l == nil {
			continue // not a pod the harness created: nothing known of it
		}
		var sets []map[string]string
		switch l.at(from, to) {
		case existed:
			sets = l.labelsDuring(from, to)
			if r.PodUID != "" && r.PodUID != l.UID {
				f(spec.NOTIF003, "pod %s (UID %s) existed when the Notification was created, but its record has podUID %q", name, l.UID, r.PodUID)
			}
		case absent:
			if l.Ran.IsZero() || !l.Run.After(to) {
				continue // removed before the Notification: PodNotFound or PodTerminated is judged elsewhere
			}
			if !allPods {
				f(spec.NOTIF003, "pod %s, created at %s after the Notification (%s), is a target of a PreExistingPods Notification (record %s %s)",
					name, l.Run.Format("15:04:05.000"), to.Format("15:04:05.000"), r.Phase, r.Reason)
				continue
			}
			sets = l.labelsDuring(l.Run, l.Ran)
		default:
			sets = l.labelsDuring(minTime(l.Run, from), maxTime(l.Ran, to))
		}
		if countMatching(sel, sets) > 0 {
			continue
		}
		id, when, why := spec.NOTIF003, "when the Notification was created", "no labels it ever had match"
		if l.at(from, to) == absent {
			id, when = spec.NOTIF004, "when it was created"
		}
		if countMatching(sel, l.everLabels()) > 0 {
			id, why = spec.NOTIF002, "only labels an update gave it later match, and a pod is decided once"
		}
		f(id, "pod %s is a target (record %s %s), but its labels %s did not match the selector: %s", name, r.Phase, r.Reason, when, why)
	}
	for _, l := range rp.lives {
		if inLast(last, l.Name) != nil {
			continue
		}
		switch l.at(from, to) {
		case existed:
			if (allPods || finalPhase(last.Status.Phase)) && last.Read.Sub(to) >= rp.opts.Reaction &&
				countMatching(sel, l.labelsDuring(from, to)) == len(l.labelsDuring(from, to)) {
				f(spec.NOTIF003, "pod %s existed and matched when the Notification was created, but its read at %s holds no record of it",
					l.Name, last.Read.Format("15:04:05.000"))
			}
		case absent:
			sets := l.labelsDuring(l.Run, l.Ran)
			if allPods && l.Run.After(to) && !l.Ran.IsZero() && (n.Removing.IsZero() || l.Ran.Before(n.Removing)) &&
				last.Read.Sub(l.Ran) >= rp.opts.Reaction && countMatching(sel, sets) == len(sets) {
				f(spec.NOTIF004, "pod %s, created at %s after the AllPods Notification and matching, has no record in its read at %s",
					l.Name, l.Ran.Format("15:04:05.000"), last.Read.Format("15:04:05.000"))
			}
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
