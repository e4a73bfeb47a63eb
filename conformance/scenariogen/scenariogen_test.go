package scenariogen

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

var allProfiles = []runtimev1.Profile{runtimev1.ProfileDefer, runtimev1.ProfileNotifier, runtimev1.ProfileUpdate, runtimev1.ProfileRecovery}

// manifest renders the scenario's pod as the suite would submit it.
func manifest(t *testing.T, s *Scenario) []byte {
	t.Helper()
	pod := s.Build().Build(fw.BuildEnv{Name: "random-pod", Image: "localhost/podspec-probe:test", ProbeDir: "/tmp/probe", RunID: "r1"})
	data, err := json.MarshalIndent(pod, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// findings are the validator's errors on the scenario's manifest, as "RULE path: message" (a
// warning, such as STOP-002's defer timeouts beyond the grace budget, is a valid pod the suite
// should run too).
func findings(t *testing.T, v *validator.Validator, s *Scenario) []string {
	t.Helper()
	var out []string
	for _, r := range v.Bytes("random.json", manifest(t, s)) {
		for _, f := range r.Findings {
			if f.Severity == finding.Error && !f.Suppressed {
				out = append(out, f.Rule+" "+f.Path+": "+f.Message)
			}
		}
	}
	return out
}

func TestTheSameSeedGivesTheSameScenario(t *testing.T) {
	for seed := range uint64(50) {
		a, b := Generate(seed, DefaultBounds(allProfiles)), Generate(seed, DefaultBounds(allProfiles))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d drew two scenarios:\n%s\n%s", seed, a.JSON(), b.JSON())
		}
	}
	if reflect.DeepEqual(Generate(1, DefaultBounds(allProfiles)), Generate(2, DefaultBounds(allProfiles))) {
		t.Error("seeds 1 and 2 drew the same scenario")
	}
}

func TestEveryGeneratedPodIsValid(t *testing.T) {
	v, err := validator.New(validator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 1000
	if testing.Short() {
		n = 200
	}
	for seed := range uint64(n) {
		s := Generate(seed, DefaultBounds(allProfiles))
		if err := s.check(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s.JSON())
		}
		if fs := findings(t, v, s); len(fs) > 0 {
			t.Fatalf("seed %d: the validator finds:\n  %s\n%s", seed, strings.Join(fs, "\n  "), manifest(t, s))
		}
	}
}

// TestGenerationCoversEveryKindAndVerb: over a few hundred seeds, every container kind, every
// part and every action is drawn (a generator that never draws one tests nothing of it).
func TestGenerationCoversEveryKindAndVerb(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(300) {
		s := Generate(seed, DefaultBounds(allProfiles))
		for _, c := range s.Containers {
			seen["kind "+string(c.Kind)] = true
			for what, has := range map[string]bool{"startup": c.Startup != nil, "readiness": c.Readiness != nil,
				"liveness": c.Liveness != nil, "postStart": c.PostStart != nil, "preStop": c.PreStop != nil,
				"notifier": len(c.Notifiers) > 0, "dependsOn": len(c.DependsOn) > 0, "crash": c.Crash,
				"onStop": c.OnStop != "", "restarts": len(c.Plan) > 1} {
				seen[what] = seen[what] || has
			}
		}
		for _, a := range s.Schedule {
			seen["verb "+string(a.Verb)] = true
		}
		seen["deadline"] = seen["deadline"] || s.DeadlineSeconds > 0
	}
	for _, want := range []string{"kind init", "kind sidecar", "kind main", "kind defer", "startup", "readiness",
		"liveness", "postStart", "preStop", "notifier", "dependsOn", "crash", "onStop", "restarts", "deadline",
		"verb stop", "verb kill", "verb notify", "verb update", "verb crash", "verb ready", "verb unready"} {
		if !seen[want] {
			t.Errorf("300 seeds never drew %s", want)
		}
	}
}

func TestOnlyTheDeclaredProfilesAreDrawn(t *testing.T) {
	for seed := range uint64(200) {
		s := Generate(seed, DefaultBounds(nil))
		if p := s.Profiles(); len(p) > 0 {
			t.Fatalf("seed %d on a core-only runtime needs %v:\n%s", seed, p, s)
		}
		for _, c := range s.Containers {
			if len(c.Notifiers) > 0 {
				t.Fatalf("seed %d on a core-only runtime declares notifiers on %s", seed, c.Name)
			}
		}
	}
}

func TestEveryScheduleIsSortedAndEndsWithAStop(t *testing.T) {
	for seed := range uint64(200) {
		s := Generate(seed, DefaultBounds(allProfiles))
		if !slices.IsSortedFunc(s.Schedule, func(a, b Action) int { return a.AtMillis - b.AtMillis }) {
			t.Fatalf("seed %d: schedule not sorted:\n%s", seed, s)
		}
		last := s.Schedule[len(s.Schedule)-1]
		if last.Verb != VerbStop || last.Grace != nil || last.AtMillis > DefaultBounds(nil).HorizonMillis {
			t.Fatalf("seed %d: the schedule ends with %s, not the pod's own stop within the horizon", seed, last)
		}
	}
}

func TestAScenarioDecodesFromWhatItPrints(t *testing.T) {
	s := Generate(7, DefaultBounds(allProfiles))
	back, err := Decode([]byte(s.JSON()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, back) {
		t.Errorf("decoded %s\nwant %s", back.JSON(), s.JSON())
	}
	if _, err := Decode([]byte(`{"containers":[{"name":"a","kind":"init","plan":["0"]}],"schedule":[{"verb":"stop"}]}`)); err == nil || !strings.Contains(err.Error(), "no main container") {
		t.Errorf("a scenario without a main container decoded: %v", err)
	}
	if _, err := Decode([]byte(`{"containers":[{"name":"a","kind":"main","plan":["x"]}],"schedule":[{"verb":"stop"}]}`)); err == nil || !strings.Contains(err.Error(), "plan entry") {
		t.Errorf("a plan entry that is neither a code nor loop decoded: %v", err)
	}
}

// crashes is a stand-in for "the model still reports the rule": some container crashes.
func crashes(s *Scenario) bool {
	return slices.ContainsFunc(s.Containers, func(c Container) bool { return c.Crash })
}

// firstWith is the first seed whose scenario fails by pred and has more than n containers.
func firstWith(t *testing.T, pred func(*Scenario) bool, n int) *Scenario {
	t.Helper()
	for seed := range uint64(1000) {
		if s := Generate(seed, DefaultBounds(allProfiles)); pred(s) && len(s.Containers) > n && len(s.Schedule) > 2 {
			return s
		}
	}
	t.Fatal("no seed of 1000 draws such a scenario")
	return nil
}

func TestShrinkingKeepsTheFailureAndReachesAMinimum(t *testing.T) {
	v, err := validator.New(validator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := firstWith(t, crashes, 3)
	var tried []*Scenario
	small, calls := Shrink(s, 1000, func(c *Scenario) bool {
		tried = append(tried, c)
		return crashes(c)
	})
	if !crashes(small) {
		t.Fatalf("the shrunk scenario lost the failure:\n%s", small)
	}
	if calls != len(tried) || calls == 0 {
		t.Errorf("Shrink reports %d calls, made %d", calls, len(tried))
	}
	for _, c := range tried {
		if err := c.check(); err != nil {
			t.Fatalf("a candidate is not a scenario: %v\n%s", err, c.JSON())
		}
		if fs := findings(t, v, c); len(fs) > 0 {
			t.Fatalf("a candidate is not a valid pod:\n  %s\n%s", strings.Join(fs, "\n  "), c.JSON())
		}
	}
	// The minimum: the crashing container, a main container if it is none, the final stop.
	if len(small.Schedule) != 1 || len(small.Containers) > 2 {
		t.Errorf("shrunk from %d containers and %d actions to:\n%s", len(s.Containers), len(s.Schedule), small)
	}
	for _, c := range candidates(small) {
		if crashes(c) {
			t.Errorf("the shrunk scenario is not a minimum: a smaller one still fails:\n%s", c)
		}
	}
	if small.Seed != s.Seed {
		t.Errorf("the shrunk scenario names seed %d, want the original's %d", small.Seed, s.Seed)
	}
	if !reflect.DeepEqual(s, Generate(s.Seed, DefaultBounds(allProfiles))) {
		t.Error("shrinking changed the original scenario")
	}
}

func TestShrinkingKeepsAStepOnlyWhereTheFailureStays(t *testing.T) {
	// Fails only while the schedule still notifies: every other action and every container
	// without the notifier goes, the notify and the notifier's container stay.
	notifies := func(s *Scenario) bool {
		return slices.ContainsFunc(s.Schedule, func(a Action) bool { return a.Verb == VerbNotify })
	}
	s := firstWith(t, notifies, 3)
	small, _ := Shrink(s, 1000, notifies)
	if !notifies(small) || len(small.Schedule) != 2 {
		t.Fatalf("want one notify and the final stop:\n%s", small)
	}
	if !small.declares(small.Schedule[0].Target) {
		t.Errorf("the notified notifier is gone:\n%s", small)
	}
}

func TestShrinkingStopsAtItsBudget(t *testing.T) {
	s := firstWith(t, crashes, 3)
	calls := 0
	small, used := Shrink(s, 3, func(c *Scenario) bool { calls++; return crashes(c) })
	if calls > 3 || used != calls {
		t.Errorf("budget 3: %d calls, reported %d", calls, used)
	}
	if !crashes(small) {
		t.Errorf("the result of a cut-short shrink lost the failure:\n%s", small)
	}
	never, used := Shrink(s, 100, func(*Scenario) bool { return false })
	if never != s || used != len(candidates(s)) {
		t.Errorf("when no candidate fails, Shrink returns the scenario itself after trying each candidate once (%d calls of %d)", used, len(candidates(s)))
	}
}
