package scenariogen

import (
	"encoding/json"
	"fmt"
	"slices"

	"podspec.dev/podspec/api/v1alpha1"
)

// Shrink reduces a scenario on which fails holds (a run of it shows the violation) to a smaller
// one on which it still holds. It is greedy, as the shrinkers of property-testing libraries are:
// it tries the candidates of one step in order (drop an action, drop a container, drop an
// optional part of a container, shorten a time), keeps the first on which fails holds, and starts
// over from it, until no candidate holds or fails has been called budget times (each call is a
// run against a real runtime, seconds long). Every candidate is a valid scenario: a step that
// removes what another part names (a dependency, a notifier, a readiness marker) removes or
// loosens that part too. It returns the smallest scenario found and how many calls it made.
func Shrink(s *Scenario, budget int, fails func(*Scenario) bool) (*Scenario, int) {
	calls := 0
	cur := s
	for calls < budget {
		progressed := false
		for _, c := range candidates(cur) {
			if calls >= budget {
				break
			}
			calls++
			if fails(c) {
				cur, progressed = c, true
				break
			}
		}
		if !progressed {
			break
		}
	}
	return cur, calls
}

// candidates are the scenarios one shrink step away, each smaller than s, biggest cut first.
func candidates(s *Scenario) []*Scenario {
	var out []*Scenario
	try := func(change func(*Scenario)) {
		c := s.clone()
		change(c)
		c.fix()
		if c.check() == nil && c.size() < s.size() {
			out = append(out, c)
		}
	}
	for i := range len(s.Schedule) - 1 {
		try(func(c *Scenario) { c.Schedule = slices.Delete(c.Schedule, i, i+1) })
	}
	for i := range s.Containers {
		try(func(c *Scenario) { c.Containers = slices.Delete(c.Containers, i, i+1) })
	}
	for i := range s.Containers {
		for _, change := range partDrops(&s.Containers[i]) {
			try(func(c *Scenario) { change(&c.Containers[i]) })
		}
	}
	try(func(c *Scenario) { c.DeadlineSeconds = 0 })
	for i := range s.Containers {
		try(func(c *Scenario) { c.Containers[i].RunMillis /= 2 })
	}
	try(func(c *Scenario) {
		for i := range c.Schedule {
			c.Schedule[i].AtMillis /= 2
		}
	})
	return out
}

// partDrops are the steps that remove one optional part of a container.
func partDrops(c *Container) []func(*Container) {
	var out []func(*Container)
	add := func(present bool, drop func(*Container)) {
		if present {
			out = append(out, drop)
		}
	}
	add(len(c.Plan) > 1, func(c *Container) { c.Plan = c.Plan[:1] })
	add(len(c.Plan) > 1, func(c *Container) { c.Plan = c.Plan[1:] })
	add(c.Startup != nil, func(c *Container) { c.Startup = nil })
	add(c.Readiness != nil, func(c *Container) { c.Readiness = nil })
	add(c.Liveness != nil, func(c *Container) { c.Liveness = nil })
	add(c.PostStart != nil, func(c *Container) { c.PostStart = nil })
	add(c.PreStop != nil, func(c *Container) { c.PreStop = nil })
	for i := range c.Notifiers {
		add(true, func(c *Container) { c.Notifiers = slices.Delete(c.Notifiers, i, i+1) })
	}
	for i := range c.DependsOn {
		add(true, func(c *Container) { c.DependsOn = slices.Delete(c.DependsOn, i, i+1) })
	}
	add(c.Crash, func(c *Container) { c.Crash = false })
	add(c.OnStop != "", func(c *Container) { c.OnStop = "" })
	add(c.StopSignal != "", func(c *Container) { c.StopSignal = "" })
	add(c.RestartPolicy != "", func(c *Container) { c.RestartPolicy = "" })
	add(c.TimeoutSeconds > 0, func(c *Container) { c.TimeoutSeconds = 0 })
	return out
}

// clone is a deep copy.
func (s *Scenario) clone() *Scenario {
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("scenariogen: copy scenario: %v", err))
	}
	var c Scenario
	if err := json.Unmarshal(data, &c); err != nil {
		panic(fmt.Sprintf("scenariogen: copy scenario: %v", err))
	}
	return &c
}

// fix makes what a removal left dangling valid again: a dependency on a container that is gone
// is dropped, one whose condition no longer can hold becomes Started, an action on a notifier or
// a readiness marker that is gone is dropped.
func (s *Scenario) fix() {
	for i := range s.Containers {
		c := &s.Containers[i]
		deps := c.DependsOn[:0]
		for _, d := range c.DependsOn {
			t := s.container(d.Name)
			if t == nil || t.Kind != KindMain {
				continue
			}
			if (d.Condition == v1alpha1.ConditionReady && t.Readiness == nil) ||
				(d.Condition == v1alpha1.ConditionCompleted && effective(t, s.RestartPolicy) == v1alpha1.RestartPolicyAlways) {
				d.Condition = v1alpha1.ConditionStarted
			}
			deps = append(deps, d)
		}
		c.DependsOn = deps
	}
	s.Schedule = slices.DeleteFunc(s.Schedule, func(a Action) bool { return s.dangling(a) != nil })
}
