package scenariogen

import (
	"fmt"
	"math/rand/v2"
	"slices"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// Bounds limit what Generate draws, so that a scenario runs in seconds.
type Bounds struct {
	// Profiles are the optional profiles the runtime declares: defers, notifications, updates
	// and crashes are drawn only when theirs is here. The same seed gives the same scenario only
	// with the same profiles.
	Profiles []runtimev1.Profile
	// MaxInit, MaxSidecars, MaxMains and MaxDefers bound each kind's count (MaxMains ≥ 1).
	MaxInit, MaxSidecars, MaxMains, MaxDefers int
	// MaxActions bounds the schedule's actions before its final stop.
	MaxActions int
	// HorizonMillis is the latest time of the final stop.
	HorizonMillis int
}

// DefaultBounds are the bounds of `conformance run --random`: up to 2 init containers, 2
// sidecars, 3 main containers, 2 defers and 4 actions, the final stop within 10 s.
func DefaultBounds(profiles []runtimev1.Profile) Bounds {
	return Bounds{Profiles: profiles, MaxInit: 2, MaxSidecars: 2, MaxMains: 3, MaxDefers: 2, MaxActions: 4, HorizonMillis: 10_000}
}

// Generate draws the scenario of seed within bounds (math/rand/v2's PCG, seeded with seed).
func Generate(seed uint64, b Bounds) *Scenario {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), b: b}
	return g.scenario(seed)
}

type gen struct {
	r *rand.Rand
	b Bounds
}

func (g *gen) has(p runtimev1.Profile) bool { return slices.Contains(g.b.Profiles, p) }

// chance is true with probability percent/100.
func (g *gen) chance(percent int) bool { return g.r.IntN(100) < percent }

func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// between draws an integer in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) scenario(seed uint64) *Scenario {
	s := &Scenario{
		Seed:          seed,
		RestartPolicy: pick(g, v1alpha1.RestartPolicyNever, v1alpha1.RestartPolicyOnFailure, v1alpha1.RestartPolicyAlways),
		ExitPolicy:    pick(g, v1alpha1.ExitPolicyAll, v1alpha1.ExitPolicyAny, v1alpha1.ExitPolicyAnyFailure),
		GraceSeconds:  int64(g.between(1, 4)),
	}
	if g.chance(20) {
		s.DeadlineSeconds = int64(g.between(3, 8))
	}
	for i := range g.r.IntN(g.b.MaxInit + 1) {
		s.Containers = append(s.Containers, g.initContainer(fmt.Sprintf("init-%d", i+1)))
	}
	for i := range g.r.IntN(g.b.MaxSidecars + 1) {
		s.Containers = append(s.Containers, g.sidecar(fmt.Sprintf("side-%d", i+1)))
	}
	var mains []*Container
	for i := range g.between(1, max(g.b.MaxMains, 1)) {
		c := g.main(fmt.Sprintf("main-%d", i+1), s.RestartPolicy, mains)
		s.Containers = append(s.Containers, c)
		mains = append(mains, &s.Containers[len(s.Containers)-1])
	}
	if g.has(runtimev1.ProfileDefer) {
		for i := range g.r.IntN(g.b.MaxDefers + 1) {
			s.Containers = append(s.Containers, g.deferContainer(fmt.Sprintf("defer-%d", i+1)))
		}
	}
	s.Schedule = g.schedule(s)
	return s
}

// plan draws each instance's end from choices (one, or a first end then another).
func (g *gen) plan(choices ...string) []string {
	first := pick(g, choices...)
	if g.chance(30) {
		return []string{first, pick(g, choices...)}
	}
	return []string{first}
}

func (g *gen) initContainer(name string) Container {
	return Container{Name: name, Kind: KindInit, Plan: g.plan("0", "0", "0", "1"), RunMillis: g.between(0, 1500)}
}

// onStop draws what a long-running workload does on its stop signal.
func (g *gen) onStop() string {
	switch n := g.r.IntN(10); {
	case n < 6:
		return ""
	case n < 8:
		return "ignore"
	default:
		return fmt.Sprintf("exit:%dms:%d", g.between(0, 1500), pick(g, 0, 1, 143))
	}
}

// checks gives a running container probes.
func (g *gen) checks(c *Container, readinessMarker bool) {
	if g.chance(25) {
		c.Startup = &Check{Exit: pick(g, 0, 0, 0, 1), PeriodSeconds: 1, FailureThreshold: int32(g.between(1, 3))}
	}
	if g.chance(40) {
		c.Readiness = &Check{Marker: readinessMarker && g.chance(60), Exit: pick(g, 0, 0, 1), PeriodSeconds: 1, FailureThreshold: int32(g.between(1, 3))}
	}
	if g.chance(20) {
		c.Liveness = &Check{Exit: pick(g, 0, 1), PeriodSeconds: 1, FailureThreshold: int32(g.between(1, 3))}
	}
}

// hooks gives a running container hooks and notifiers.
func (g *gen) hooks(c *Container) {
	if g.chance(25) {
		c.PostStart = &Hook{SleepMillis: g.between(0, 1000), Exit: pick(g, 0, 0, 0, 1)}
	}
	if g.chance(30) {
		c.PreStop = &Hook{SleepMillis: g.between(0, 2000), Exit: pick(g, 0, 0, 1)}
	}
	if g.has(runtimev1.ProfileNotifier) && g.chance(40) {
		for i := range g.between(1, 2) {
			n := Notifier{Name: fmt.Sprintf("%s-n%d", c.Name, i+1)}
			if g.chance(50) {
				n.Signal = pick(g, "SIGHUP", "SIGUSR1", "SIGUSR2")
			} else {
				n.SleepMillis, n.Exit = g.between(0, 1500), pick(g, 0, 0, 1)
			}
			c.Notifiers = append(c.Notifiers, n)
		}
	}
}

func (g *gen) running(c *Container) {
	if g.chance(10) {
		c.StopSignal = "SIGINT"
	}
	c.OnStop = g.onStop()
	if c.Crash = g.chance(10); c.Crash {
		c.Plan = []string{Loop} // the crash ends each instance
	}
	g.checks(c, true)
	g.hooks(c)
}

func (g *gen) sidecar(name string) Container {
	c := Container{Name: name, Kind: KindSidecar, Plan: g.plan(Loop, Loop, Loop, "1"), RunMillis: g.between(200, 3000)}
	g.running(&c)
	return c
}

func (g *gen) main(name string, podPolicy v1alpha1.RestartPolicy, earlier []*Container) Container {
	c := Container{Name: name, Kind: KindMain, Plan: g.plan("0", "0", "3", "1", Loop, Loop), RunMillis: g.between(0, 3000)}
	if g.chance(20) {
		c.RestartPolicy = pick(g, v1alpha1.RestartPolicyNever, v1alpha1.RestartPolicyOnFailure, v1alpha1.RestartPolicyAlways)
	}
	g.running(&c)
	for _, d := range earlier {
		if !g.chance(30) {
			continue
		}
		conds := []v1alpha1.DependencyCondition{v1alpha1.ConditionStarted}
		if d.Readiness != nil {
			conds = append(conds, v1alpha1.ConditionReady)
		}
		if effective(d, podPolicy) != v1alpha1.RestartPolicyAlways {
			conds = append(conds, v1alpha1.ConditionCompleted)
		}
		c.DependsOn = append(c.DependsOn, v1alpha1.Dependency{Name: d.Name, Condition: pick(g, conds...)})
	}
	return c
}

func (g *gen) deferContainer(name string) Container {
	c := Container{Name: name, Kind: KindDefer, Plan: g.plan("0", "0", "1"), RunMillis: g.between(0, 1500),
		Phase: pick(g, v1alpha1.DeferBeforeStop, v1alpha1.DeferAfterStop), OnFailure: pick(g, v1alpha1.DeferContinue, v1alpha1.DeferAbort)}
	if g.chance(40) {
		c.TimeoutSeconds = int64(g.between(1, 3))
	}
	return c
}

// schedule draws the actions, sorted by time, and the final stop.
func (g *gen) schedule(s *Scenario) []Action {
	verbs := []Verb{VerbStop, VerbKill}
	var notifiers, markers []string
	for _, c := range s.Containers {
		for _, n := range c.Notifiers {
			notifiers = append(notifiers, n.Name)
		}
		if c.Readiness != nil && c.Readiness.Marker {
			markers = append(markers, c.Name)
		}
	}
	if len(notifiers) > 0 {
		verbs = append(verbs, VerbNotify, VerbNotify)
	}
	if g.has(runtimev1.ProfileUpdate) {
		verbs = append(verbs, VerbUpdate)
	}
	if g.has(runtimev1.ProfileRecovery) {
		verbs = append(verbs, VerbCrash)
	}
	if len(markers) > 0 {
		verbs = append(verbs, VerbReady, VerbUnready)
	}
	horizon := g.between(g.b.HorizonMillis/2, g.b.HorizonMillis)
	var out []Action
	for range g.r.IntN(g.b.MaxActions + 1) {
		a := Action{AtMillis: g.r.IntN(horizon), Verb: pick(g, verbs...)}
		switch a.Verb {
		case VerbStop:
			if g.chance(40) {
				grace := int64(g.between(0, 3))
				a.Grace = &grace
			}
		case VerbNotify:
			a.Target = pick(g, notifiers...)
		case VerbReady, VerbUnready:
			a.Target = pick(g, markers...)
		}
		out = append(out, a)
	}
	slices.SortStableFunc(out, func(a, b Action) int { return a.AtMillis - b.AtMillis })
	return append(out, Action{AtMillis: horizon, Verb: VerbStop})
}
