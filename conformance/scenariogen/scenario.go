// Package scenariogen draws random valid pod scenarios for the conformance suite, like
// property-based testing: from a seed it draws a pod (init containers, sidecars, main containers
// and defers, with restart and exit policies, dependencies, probes, hooks and notifiers, within
// bounds that run in seconds) whose containers run the probe workload with drawn behaviour (exit
// codes, run times, crashes, what they do on their stop signal), and a schedule of actions on the
// pod (stops, forced stops, notifications, updates, supervisor crashes, readiness flips). The
// same seed and bounds always give the same scenario. Shrink reduces a scenario on which a
// property fails to a smaller one on which it still fails.
//
// A Scenario is plain data (it prints as JSON and decodes back); Build renders its pod for the
// framework and Drive acts out its schedule. The package judges nothing: the suite runs the
// scenario against a runtime and asks the lifecycle model (package model) for the verdict.
package scenariogen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// Kind is a container's kind in the pod.
type Kind string

// Container kinds.
const (
	KindInit    Kind = "init"
	KindSidecar Kind = "sidecar"
	KindMain    Kind = "main"
	KindDefer   Kind = "defer"
)

// Loop in a container's plan is an instance that runs until its stop signal.
const Loop = "loop"

// Scenario is one generated pod and what happens to it. Times are milliseconds from the moment
// `run --detach` returned.
type Scenario struct {
	// Seed is the seed the scenario was drawn from (kept by Shrink: it names the original).
	Seed          uint64                 `json:"seed"`
	RestartPolicy v1alpha1.RestartPolicy `json:"restartPolicy"`
	ExitPolicy    v1alpha1.ExitPolicy    `json:"exitPolicy"`
	GraceSeconds  int64                  `json:"graceSeconds"`
	// DeadlineSeconds is activeDeadlineSeconds (0: none).
	DeadlineSeconds int64       `json:"deadlineSeconds,omitempty"`
	Containers      []Container `json:"containers"`
	// Schedule is sorted by At; its last action is always a stop, so every scenario ends.
	Schedule []Action `json:"schedule"`
}

// Container is one container and its workload's behaviour.
type Container struct {
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Plan is each instance's end: an exit code, or Loop; the last entry repeats.
	Plan []string `json:"plan"`
	// RunMillis is how long an instance that ends on its own runs (exit or crash).
	RunMillis int `json:"runMillis"`
	// Crash makes every instance die from SIGSEGV after RunMillis.
	Crash bool `json:"crash,omitempty"`
	// StopSignal is the container's stop signal ("" is SIGTERM).
	StopSignal string `json:"stopSignal,omitempty"`
	// OnStop is what the workload does on its stop signal: "" exits 0 at once, "ignore", or
	// "exit:LINGER:CODE".
	OnStop string `json:"onStop,omitempty"`
	// RestartPolicy is a main container's own policy ("" is the pod's).
	RestartPolicy v1alpha1.RestartPolicy      `json:"restartPolicy,omitempty"`
	DependsOn     []v1alpha1.Dependency       `json:"dependsOn,omitempty"`
	Startup       *Check                      `json:"startup,omitempty"`
	Readiness     *Check                      `json:"readiness,omitempty"`
	Liveness      *Check                      `json:"liveness,omitempty"`
	PostStart     *Hook                       `json:"postStart,omitempty"`
	PreStop       *Hook                       `json:"preStop,omitempty"`
	Notifiers     []Notifier                  `json:"notifiers,omitempty"`
	Phase         v1alpha1.DeferPhase         `json:"phase,omitempty"`
	OnFailure     v1alpha1.DeferFailurePolicy `json:"onFailure,omitempty"`
	// TimeoutSeconds is a defer's timeoutSeconds (0: none).
	TimeoutSeconds int64 `json:"timeoutSeconds,omitempty"`
}

// Check is a probe backed by the probe binary.
type Check struct {
	// Exit is the check's exit code, unless Marker.
	Exit int `json:"exit"`
	// Marker makes the check succeed while the container's readiness marker exists: the workload
	// creates it when it starts, the schedule's ready and unready actions create and remove it.
	Marker           bool  `json:"marker,omitempty"`
	PeriodSeconds    int32 `json:"periodSeconds"`
	FailureThreshold int32 `json:"failureThreshold"`
}

// Hook is a probe-backed exec hook.
type Hook struct {
	SleepMillis int `json:"sleepMillis"`
	Exit        int `json:"exit"`
}

// Notifier is a notifier: a signal, or a probe-backed exec action.
type Notifier struct {
	Name        string `json:"name"`
	Signal      string `json:"signal,omitempty"`
	SleepMillis int    `json:"sleepMillis,omitempty"`
	Exit        int    `json:"exit,omitempty"`
}

// Verb is what an action does.
type Verb string

// Actions of a schedule.
const (
	// VerbStop is `stop` (with Grace when set).
	VerbStop Verb = "stop"
	// VerbKill is `stop --force`: every container gets SIGKILL at once.
	VerbKill Verb = "kill"
	// VerbNotify is `notify POD NOTIFIER` (Target names the notifier).
	VerbNotify Verb = "notify"
	// VerbUpdate is `update` with a changed label (an in-place update every runtime of the
	// profile takes).
	VerbUpdate Verb = "update"
	// VerbCrash is `crash`: the runtime loses the pod's supervisor; the next verb adopts it.
	VerbCrash Verb = "crash"
	// VerbReady and VerbUnready create and remove Target's readiness marker.
	VerbReady   Verb = "ready"
	VerbUnready Verb = "unready"
)

// Action is one step of a schedule.
type Action struct {
	AtMillis int    `json:"atMillis"`
	Verb     Verb   `json:"verb"`
	Target   string `json:"target,omitempty"`
	// Grace is a stop's --grace-period (nil: the pod's own).
	Grace *int64 `json:"grace,omitempty"`
}

func (a Action) String() string {
	s := fmt.Sprintf("at %5dms %s", a.AtMillis, a.Verb)
	if a.Target != "" {
		s += " " + a.Target
	}
	if a.Grace != nil {
		s += fmt.Sprintf(" --grace-period %d", *a.Grace)
	}
	return s
}

// Profiles lists the optional profiles the scenario needs, sorted.
func (s *Scenario) Profiles() []runtimev1.Profile {
	set := map[runtimev1.Profile]bool{}
	for _, c := range s.Containers {
		if c.Kind == KindDefer {
			set[runtimev1.ProfileDefer] = true
		}
	}
	for _, a := range s.Schedule {
		switch a.Verb {
		case VerbNotify:
			set[runtimev1.ProfileNotifier] = true
		case VerbUpdate:
			set[runtimev1.ProfileUpdate] = true
		case VerbCrash:
			set[runtimev1.ProfileRecovery] = true
		}
	}
	var out []runtimev1.Profile
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// JSON is the scenario as indented JSON (what a failed run prints to replay it).
func (s *Scenario) JSON() string {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		// A Scenario is plain data; it always encodes.
		panic(fmt.Sprintf("scenariogen: encode scenario: %v", err))
	}
	return string(b)
}

// Decode reads a scenario printed by JSON.
func Decode(data []byte) (*Scenario, error) {
	var s Scenario
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("decode scenario: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// String summarises the scenario: its containers and its schedule.
func (s *Scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: restartPolicy %s, exitPolicy %s, grace %ds", s.Seed, s.RestartPolicy, s.ExitPolicy, s.GraceSeconds)
	if s.DeadlineSeconds > 0 {
		fmt.Fprintf(&b, ", activeDeadlineSeconds %d", s.DeadlineSeconds)
	}
	for _, c := range s.Containers {
		fmt.Fprintf(&b, "\n  %-7s %-8s plan %v after %dms", c.Kind, c.Name, c.Plan, c.RunMillis)
		if c.Crash {
			b.WriteString(" crash")
		}
		if c.OnStop != "" {
			b.WriteString(" onStop=" + c.OnStop)
		}
	}
	b.WriteString("\n  schedule:")
	for _, a := range s.Schedule {
		b.WriteString("\n    " + a.String())
	}
	return b.String()
}

// size is what shrinking reduces: containers, actions, optional parts and time.
func (s *Scenario) size() int {
	n := 1000*len(s.Containers) + 1000*len(s.Schedule)
	for _, c := range s.Containers {
		n += 100 * (len(c.Plan) + len(c.DependsOn) + len(c.Notifiers) + count(c.Startup != nil, c.Readiness != nil,
			c.Liveness != nil, c.PostStart != nil, c.PreStop != nil, c.Crash, c.OnStop != "", c.StopSignal != ""))
		n += c.RunMillis / 100
	}
	for _, a := range s.Schedule {
		n += a.AtMillis / 100
	}
	return n + int(s.DeadlineSeconds)
}

func count(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// container returns the named container.
func (s *Scenario) container(name string) *Container {
	for i := range s.Containers {
		if s.Containers[i].Name == name {
			return &s.Containers[i]
		}
	}
	return nil
}

// check reports the first invariant a scenario breaks (a decoded file, or a shrink step's bug):
// the pod must have a main container and end with a stop, and every reference must resolve.
func (s *Scenario) check() error {
	mains := 0
	for _, c := range s.Containers {
		if c.Kind == KindMain {
			mains++
		}
		if len(c.Plan) == 0 {
			return fmt.Errorf("scenario: container %s has no plan", c.Name)
		}
		for _, p := range c.Plan {
			if _, err := strconv.Atoi(p); err != nil && p != Loop {
				return fmt.Errorf("scenario: container %s: plan entry %q is neither an exit code nor %q", c.Name, p, Loop)
			}
		}
		for _, d := range c.DependsOn {
			if t := s.container(d.Name); t == nil || t.Kind != KindMain {
				return fmt.Errorf("scenario: %s depends on %s, which is no main container", c.Name, d.Name)
			}
		}
	}
	if mains == 0 {
		return fmt.Errorf("scenario: no main container")
	}
	if len(s.Schedule) == 0 || s.Schedule[len(s.Schedule)-1].Verb != VerbStop {
		return fmt.Errorf("scenario: the schedule must end with a stop")
	}
	for _, a := range s.Schedule {
		if err := s.dangling(a); err != nil {
			return err
		}
	}
	return nil
}

// dangling says what an action names that the scenario lacks: a notify's notifier, a ready or
// unready action's readiness marker (nil: nothing).
func (s *Scenario) dangling(a Action) error {
	switch a.Verb {
	case VerbNotify:
		if !s.declares(a.Target) {
			return fmt.Errorf("scenario: no container declares notifier %s", a.Target)
		}
	case VerbReady, VerbUnready:
		if c := s.container(a.Target); c == nil || c.Readiness == nil || !c.Readiness.Marker {
			return fmt.Errorf("scenario: %s has no readiness marker", a.Target)
		}
	}
	return nil
}

// declares reports whether a container declares the notifier.
func (s *Scenario) declares(notifier string) bool {
	for _, c := range s.Containers {
		for _, n := range c.Notifiers {
			if n.Name == notifier {
				return true
			}
		}
	}
	return false
}

// effective is a main container's restart policy: its own, else the pod's.
func effective(c *Container, podPolicy v1alpha1.RestartPolicy) v1alpha1.RestartPolicy {
	if c.RestartPolicy != "" {
		return c.RestartPolicy
	}
	return podPolicy
}
