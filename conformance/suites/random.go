package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/model"
	"podspec.dev/podspec/conformance/scenariogen"
)

// RandomLabel labels the specs of generated scenarios. They exist only in a run that asks for
// them (Options.Random), so a certification run, which cannot, has none.
const RandomLabel = "random"

// Random asks a run for generated scenarios (package scenariogen), each judged by the lifecycle
// model; a violation is shrunk to a smaller scenario that shows the same rule broken.
type Random struct {
	// N scenarios are drawn, the i-th (from 0) from seed Seed+i: `--random 1 --seed Seed+i`
	// replays it alone.
	N    int
	Seed uint64
	// Scenarios, when set, are run instead of drawn ones (a printed scenario replayed).
	Scenarios []*scenariogen.Scenario
	// Profiles are the optional profiles the runtime declares, which the draws may use.
	Profiles []runtimev1.Profile
	// ShrinkRuns bounds the runs a shrink makes per violated scenario (0: no shrinking).
	ShrinkRuns int
}

// scenarios are the run's generated scenarios.
func (r Random) scenarios() []*scenariogen.Scenario {
	if len(r.Scenarios) > 0 {
		return r.Scenarios
	}
	out := make([]*scenariogen.Scenario, r.N)
	for i := range out {
		out[i] = scenariogen.Generate(r.Seed+uint64(i), scenariogen.DefaultBounds(r.Profiles))
	}
	return out
}

// registerRandom declares a container per generated scenario: its run, and one spec, "its whole
// history conforms", which judges it by the model and, on a violation, shrinks it.
func (s *suite) registerRandom() {
	for i, g := range s.opts.Random.scenarios() {
		sc := s.randomScenario(g, fmt.Sprintf("random-%d", g.Seed))
		s.scenarios.Add(sc)
		s.judged[sc] = true // by the spec below
		s.random = append(s.random, sc)
		var out *fw.Outcome
		text := fmt.Sprintf("Random scenario %d (seed %d)", i, g.Seed)
		Describe(text, Ordered, Label(RandomLabel), scenarioLabels(sc), func() {
			BeforeAll(func(ctx SpecContext) {
				s.requireScenario(sc)
				AddReportEntry("scenario", g.String(), ReportEntryVisibilityFailureOrVerbose)
				out = s.scenarios.Await(ctx, sc)
				DeferCleanup(func(ctx SpecContext) {
					Expect(s.scenarios.Cleanup(ctx, sc)).To(Succeed(), "remove pod %s", sc.Short)
				})
				Expect(out.Err).NotTo(HaveOccurred(), "scenario %s\n%s\n\n%s", sc.Short, g, replayHint(g))
			})
			AfterEach(func(ctx SpecContext) {
				attachTimeline(out)
				s.keepEvidence(ctx, out)
			})
			// The model is the judge here. The hand-written scenarios' check that every
			// ContainerStarted has its workload's start report (Timeline.Consistent) is not made:
			// a drawn schedule can signal an instance milliseconds after its start, before its
			// workload could report anything (seeds 1001, 1004, 1011 on a loaded machine). Since
			// Consistent allows exactly that for an instance the runtime signalled and that died
			// of the signal, it could be made here; that waits for a run of generated scenarios
			// that shows it adds no false finding.
			It(conformsText, append(Labels{RandomLabel}, modelLabels(sc)[1:]...), func(ctx SpecContext) {
				v, err := s.judge(out)
				Expect(err).NotTo(HaveOccurred())
				AddReportEntry("model verdict", v.String(), ReportEntryVisibilityFailureOrVerbose)
				if v.Conforms() {
					return
				}
				Fail(fmt.Sprintf("%s\n\n%s\n%s\n\n%s", v, g, replayHint(g), s.shrink(ctx, g, v.Findings[0].Rule)) + "\n\n" + out.Timeline.String())
			})
		})
	}
}

// randomScenario is the framework scenario that runs a generated one.
func (s *suite) randomScenario(g *scenariogen.Scenario, short string) *fw.Scenario {
	sc := &fw.Scenario{Short: short, Pod: g.Build(), Needs: g.Profiles()}
	sc.Drive = func(ctx context.Context, p *fw.Pod) error { return g.Drive(s.f)(ctx, p) }
	return sc
}

// shrink runs smaller scenarios than g until the smallest that still breaks rule is found (within
// Random.ShrinkRuns runs) and describes it: the scenario to replay, its manifest and its verdict.
func (s *suite) shrink(ctx context.Context, g *scenariogen.Scenario, rule string) string {
	budget := s.opts.Random.ShrinkRuns
	if budget == 0 {
		return "not shrunk (no shrink budget)"
	}
	var last *model.Verdict
	step := 0
	small, runs := scenariogen.Shrink(g, budget, func(c *scenariogen.Scenario) bool {
		step++
		sc := s.scenarios.Add(s.randomScenario(c, fmt.Sprintf("random-%d-s%d", g.Seed, step)))
		out := s.scenarios.Await(ctx, sc)
		defer func() { _ = s.scenarios.Cleanup(context.WithoutCancel(ctx), sc) }()
		if out.Err != nil {
			return false // another failure: not the same finding
		}
		v, err := s.judge(out)
		if err != nil || !slices.ContainsFunc(v.Findings, func(f model.Finding) bool { return f.Rule == rule }) {
			return false
		}
		last = v
		return true
	})
	if last == nil {
		return fmt.Sprintf("shrinking found no smaller scenario that breaks %s (%d runs)", rule, runs)
	}
	manifest, _ := json.MarshalIndent(small.Build().Build(fw.BuildEnv{Name: "POD", Image: "IMAGE", ProbeDir: "PROBE-DIR", RunID: "RUN"}), "", "  ")
	var b strings.Builder
	fmt.Fprintf(&b, "shrunk in %d runs to a scenario that still breaks %s:\n%s\n\n", runs, rule, small)
	fmt.Fprintf(&b, "its model verdict:\n%s\n\n", last)
	fmt.Fprintf(&b, "replay it with --random-scenario FILE, FILE holding:\n%s\n\n", small.JSON())
	fmt.Fprintf(&b, "its manifest (image, probe directory and run ID as the harness fills them in):\n%s", manifest)
	return b.String()
}

// replayHint says how to run a generated scenario alone.
func replayHint(g *scenariogen.Scenario) string {
	return fmt.Sprintf("replay it alone: podspec conformance run --random 1 --seed %d (with the same declared profiles)", g.Seed)
}
