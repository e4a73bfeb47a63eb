// Package model is an executable model of the pod lifecycle the specification describes: given
// a pod's manifest and its whole recorded history (the runtime's events and what the workloads
// reported from inside the containers, on one clock), it replays the history through the
// specification's rules and reports every event the specification does not allow at that point,
// every event that is missing, and every field that does not match what happened, each finding
// naming the requirement it breaks.
//
// The model judges any runtime through the command-line contract's records only: it imports
// nothing of the reference runtime and knows nothing of Ginkgo. It never reports a violation it
// cannot decide: where two readings of a history are both allowed (an instance that ended on its
// own just as the runtime signalled it, a stop request recorded while an exit was being handled),
// it accepts either, and where a timing decides, it uses the specification's bound widened only
// by the reaction tolerance the caller passes (the suite's slow factor).
package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
)

// History is what the model judges: one pod's manifest as submitted, the runtime's events (any
// order; the model sorts them by seq), what the workloads reported (stamped on arrival), the
// pod's final status (nil when unknown), and the Notifications the harness created and read
// (those that name the pod in spec.pods, select it by its labels or hold a record of it are
// judged; nil when none), the updates and supervisor crashes the harness made (nil when none),
// the pods the harness created beside this one, this one among them, whose existence and
// labels decide the Notifications' targets (nil when unknown), and what the harness read of the
// images the manifest names, by reference as written (nil when unknown).
type History struct {
	Pod           *v1alpha1.Pod
	Events        []runtimev1.Event
	Probe         []probe.Event
	Final         *v1alpha1.PodStatus
	Notifications []Notification
	Updates       []Update
	Crashes       []Crash
	Pods          []PodLife
	Images        map[string]Image
}

// Schedule says what a scenario's schedule may do to its pod besides stopping it and acting in
// its containers: update it, make the runtime lose its supervisor. The rules of updates and of a
// supervisor's loss label only the scenarios whose schedule may do that.
type Schedule struct {
	Updates, Crashes bool
}

// Options are the timing allowances of a judgement.
type Options struct {
	// Reaction is the specification's reaction tolerance (1 s) times the run's slow factor: how
	// late a timed or immediate action may be.
	Reaction time.Duration
	// EarlyMargin is the measurement granularity of "not before" checks; it never grows with the
	// slow factor.
	EarlyMargin time.Duration
}

// Finding is one violation: the requirement it breaks, the event it is about (0 when it is about
// the history as a whole or the final status), the container (if any) and what happened.
type Finding struct {
	Rule      string
	Seq       int64
	Container string
	Message   string
}

func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Rule)
	if f.Seq > 0 {
		fmt.Fprintf(&b, " at #%d", f.Seq)
	}
	if f.Container != "" {
		b.WriteString(" (" + f.Container + ")")
	}
	b.WriteString(": " + f.Message)
	return b.String()
}

// Verdict is the model's judgement of one history.
type Verdict struct {
	// Findings are the violations, in the order of the events they are about.
	Findings []Finding
	// Checked lists the requirements the model judged on this history, sorted.
	Checked []string
	// Skipped says, per requirement the manifest makes checkable but the history does not let
	// the model judge (an update replaced instances, a supervisor was lost), why.
	Skipped map[string]string
}

// Conforms reports whether the history broke none of the rules the model judged.
func (v *Verdict) Conforms() bool { return len(v.Findings) == 0 }

func (v *Verdict) String() string {
	var b strings.Builder
	if v.Conforms() {
		fmt.Fprintf(&b, "the history conforms to the %d requirements the model judged", len(v.Checked))
	} else {
		fmt.Fprintf(&b, "%d violations of the requirements the model judged:", len(v.Findings))
		for _, f := range v.Findings {
			b.WriteString("\n  " + f.String())
		}
	}
	if len(v.Skipped) > 0 {
		b.WriteString("\nnot judged on this history:")
		for _, id := range sortedKeys(v.Skipped) {
			b.WriteString("\n  [" + id + "] " + v.Skipped[id])
		}
	}
	return b.String()
}

// rule is one check of the model: the requirements it judges, whether a manifest gives it
// anything to judge, and the check itself.
type rule struct {
	ids     []string
	applies func(*v1alpha1.Pod) bool
	check   func(*replay) []Finding
	// underUpdate and underLoss say the rule holds as written on a history with an applied
	// update, or with a supervisor's loss; the others are not judged there.
	underUpdate, underLoss bool
	// onUpdate and onCrash say the rule judges only what updates, or supervisor crashes, do: it
	// labels only a scenario whose schedule may hold one (Schedule).
	onUpdate, onCrash bool
}

// Rules lists the requirements the model judges on every history of a pod with this manifest
// under a schedule that may do what s says, sorted: the labels of the spec that runs the model
// on a scenario.
func Rules(pod *v1alpha1.Pod, s Schedule) []string {
	p := defaulted(pod)
	return ruleIDs(func(r rule) bool {
		return (r.applies == nil || r.applies(p)) && (!r.onUpdate || s.Updates) && (!r.onCrash || s.Crashes)
	})
}

// Judged lists every requirement the model judges on some history, sorted: the union of the rules
// table's IDs, whatever the manifest (scripts/mutantcheck's `model` count reads it).
func Judged() []string { return ruleIDs(func(rule) bool { return true }) }

// ruleIDs is the union of the IDs of the rules keep accepts, sorted.
func ruleIDs(keep func(rule) bool) []string {
	set := map[string]bool{}
	for _, r := range rules {
		if keep(r) {
			for _, id := range r.ids {
				set[id] = true
			}
		}
	}
	return sortedKeys(set)
}

// Check replays a history and judges it.
func Check(h History, opts Options) *Verdict {
	rp := newReplay(h, opts)
	v := &Verdict{Skipped: map[string]string{}}
	checked := map[string]bool{}
	for _, r := range rules {
		if r.applies != nil && !r.applies(rp.pod) {
			continue
		}
		if why := rp.outOfModel(r); why != "" {
			for _, id := range r.ids {
				v.Skipped[id] = why
			}
			continue
		}
		for _, id := range r.ids {
			checked[id] = true
		}
		v.Findings = append(v.Findings, r.check(rp)...)
	}
	for id := range v.Skipped {
		if checked[id] {
			delete(v.Skipped, id)
		}
	}
	v.Checked = sortedKeys(checked)
	sort.SliceStable(v.Findings, func(i, j int) bool { return v.Findings[i].Seq < v.Findings[j].Seq })
	return v
}

// sortedKeys are the map's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// defaulted is a copy of the pod with every default filled in.
func defaulted(pod *v1alpha1.Pod) *v1alpha1.Pod {
	var p v1alpha1.Pod
	data, err := json.Marshal(pod)
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err != nil {
		// The API types always round-trip; a pod that does not is a bug of the caller.
		panic(fmt.Sprintf("model: copy the manifest: %v", err))
	}
	p.SetDefaults()
	return &p
}
