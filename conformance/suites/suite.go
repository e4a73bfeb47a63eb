// Package suites holds the conformance specs (Ginkgo v2), grouped by area of the specification,
// and Run, the entry point that runs them against a runtime — from `go test` or from the
// `podspec conformance run` verb, so that a vendor needs only the released binaries.
//
// Every spec carries Label("req:<ID>") with IDs from docs/requirements.yaml. A scenario (one pod
// run) feeds an Ordered container with one It per requirement; scenarios run ahead of their
// specs, several at a time, because most of a lifecycle test is waiting. Specs of an optional
// profile the runtime does not declare are skipped with that reason; a declared profile that does
// not work fails. The package keeps no package-level state: the tree is built inside Run.
package suites

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best dot-imported
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega" //nolint:revive // Gomega's DSL reads best dot-imported

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// Options configure one run of the suite.
type Options struct {
	// Framework configures the harness (runtime command, probe binary, tolerances, ...).
	Framework framework.Config
	// Parallel bounds how many scenarios (pods) run at once.
	Parallel int
	// Prefetch starts every scenario of a declared profile when the suite starts, instead of
	// when its specs are reached. Use it only when no filter narrows the run.
	Prefetch bool
	// Suite and Reporter are Ginkgo's configurations (filters, reports, verbosity, dry run).
	Suite    types.SuiteConfig
	Reporter types.ReporterConfig
	// CoverageFile, when set, receives the coverage matrix as Markdown; CoverageJSON as JSON.
	CoverageFile string
	CoverageJSON string
	// Log receives harness progress (runtime commands, tolerances); nil discards.
	Log io.Writer
	// ComplianceLevel is ComplianceMust (the default when empty) or ComplianceShould: the lowest
	// requirement level whose failed spec fails the run (see gradedIt).
	ComplianceLevel string
	// Random adds generated scenarios (label RandomLabel) to the tree; none when N is 0 and no
	// Scenarios are given. They start when the suite starts, Parallel at a time.
	Random Random
}

// suite is the state the specs share; it lives as long as one Run.
type suite struct {
	opts      Options
	scenarios *framework.Scenarios
	f         *framework.Framework // set in BeforeSuite
	// judged holds the scenarios whose whole history a model spec judges.
	judged map[*framework.Scenario]bool
	// random holds the generated scenarios (Options.Random).
	random []*framework.Scenario
}

// failRecorder is the GinkgoTestingT Run passes when it is not called from `go test`.
type failRecorder struct{ failed bool }

func (r *failRecorder) Fail() { r.failed = true }

// Run builds the spec tree and runs it once (Ginkgo allows one run per process). It returns
// whether every spec passed.
func Run(t GinkgoTestingT, opts Options) bool {
	if t == nil {
		t = &failRecorder{}
	}
	if opts.Parallel < 1 {
		opts.Parallel = 4
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.ComplianceLevel == "" {
		opts.ComplianceLevel = ComplianceMust
	}
	s := &suite{opts: opts, scenarios: framework.NewScenarios(opts.Parallel), judged: map[*framework.Scenario]bool{}}
	s.register()
	RegisterFailHandler(Fail)
	return RunSpecs(t, "podspec runtime conformance", opts.Suite, opts.Reporter)
}

// register declares the whole tree.
func (s *suite) register() {
	BeforeSuite(s.beforeSuite)
	// The clean-up must finish even after an interrupt: Ginkgo waits GracePeriod for it.
	AfterSuite(s.afterSuite, GracePeriod(framework.CleanupTimeout))
	ReportAfterSuite("coverage matrix", s.reportCoverage)
	// Every spec quotes the requirements it checks, shown with a failure (or in verbose mode).
	BeforeEach(func() {
		for _, id := range reqIDs(CurrentSpecReport().Labels()) {
			if r, ok := spec.Lookup(id); ok {
				AddReportEntry("requirement "+id, fmt.Sprintf("%s (%s, %s): %s", r.ID, r.Level, r.Link(), r.Text), ReportEntryVisibilityFailureOrVerbose)
			}
		}
		for _, id := range clauseIDs(CurrentSpecReport().Labels()) {
			if c, ok := spec.LookupClause(id); ok {
				AddReportEntry("clause "+id, "the clause "+c.ID+" checked here: "+c.Text, ReportEntryVisibilityFailureOrVerbose)
			}
		}
	})
	s.registerIdentity()
	s.registerInit()
	s.registerSidecars()
	s.registerDependencies()
	s.registerExitMatrix()
	s.registerRestart()
	s.registerStop()
	s.registerForcedStop()
	s.registerDeadline()
	s.registerBadInput()
	s.registerEnvironment()
	s.registerReadOnlyTree()
	s.registerStopDuringCreation()
	s.registerActionDuringStop()
	s.registerStateRoot()
	s.registerProbes()
	s.registerReadinessLoss()
	s.registerLivenessThreshold()
	s.registerTiming()
	s.registerCancelledRestart()
	s.registerResources()
	s.registerImages()
	s.registerRegistryImages()
	s.registerDeferOrder()
	s.registerDefers()
	s.registerInitSlow()
	s.registerSecurity()
	s.registerStatePrivacy()
	s.registerImageAttacks()
	s.registerImageUser()
	s.registerSecurityContext()
	s.registerRealPrograms()
	s.registerHostPorts()
	s.registerCoreDumps()
	s.registerProbeTiming()
	s.registerHTTPGetProbes()
	s.registerNetProbeAddresses()
	s.registerGRPCProbes()
	s.registerHTTPGetHooks()
	s.registerNotifiers()
	s.registerUpdates()
	s.registerGC()
	s.registerSizeLimit()
	s.registerLogBound()
	s.registerRecovery()
	s.registerConcurrentAdoption()
	s.registerKilledRun()
	s.registerFullDisk()
	s.registerRandom()
	s.judgeRest()
}

func (s *suite) beforeSuite(ctx SpecContext) {
	cfg := s.opts.Framework
	if cfg.Log == nil {
		cfg.Log = GinkgoWriter
	}
	f, err := framework.New(ctx, cfg)
	Expect(err).NotTo(HaveOccurred(), "prepare the run")
	s.f = f
	s.scenarios.Bind(f)
	fmt.Fprintf(s.opts.Log, "run %s against %s (%s %s), contract %s, profiles %v\n%s",
		f.RunID(), strings.Join(f.RT.Command(), " "), f.Version.Runtime.Name, f.Version.Runtime.Version,
		f.Version.ContractVersion, f.Version.Profiles, f.Tolerances())
	AddReportEntry("run", fmt.Sprintf("run ID %s; runtime %s %s; contract %s; declared profiles %v",
		f.RunID(), f.Version.Runtime.Name, f.Version.Runtime.Version, f.Version.ContractVersion, f.Version.Profiles))
	AddReportEntry("tolerances", f.Tolerances().String())
	AddReportEntry("compliance level", s.opts.ComplianceLevel)
	Expect(f.Version.ContractVersion).To(HavePrefix("1."), "contract version the harness speaks")
	Expect(f.Version.Has(spec.ProfileCore)).To(BeTrue(), "a runtime must declare the core profile")
	// Generated scenarios are asked for by their run: start them all, whatever filters it has.
	s.scenarios.Prefetch(func(sc *framework.Scenario) bool {
		if !s.opts.Prefetch && !slices.Contains(s.random, sc) {
			return false
		}
		for _, p := range sc.Profiles() {
			if !f.Version.Has(p) {
				return false
			}
		}
		return true
	})
}

func (s *suite) afterSuite(ctx SpecContext) {
	if s.f == nil {
		return
	}
	// Every spec is done (or the run was interrupted): scenarios nobody waits for any more end now.
	s.scenarios.CancelAll()
	// Notifications first: an AllPods one would otherwise outlive the run (profile notifier).
	Expect(s.f.RemoveNotifications(ctx)).To(Succeed(), "remove every Notification of the run")
	Expect(s.scenarios.CleanupAll(ctx)).To(Succeed(), "remove every pod of the run")
	// Pods made outside scenarios (in specs) were removed by their DeferCleanup; this catches any
	// an interrupted spec left.
	Expect(s.f.CleanupPods(ctx)).To(Succeed(), "remove every pod of the run")
	// The runtime reaps asynchronously after rm; give the host a moment before judging.
	Eventually(func() error { return s.f.CheckLeaks(ctx) }).WithContext(ctx).
		WithTimeout(s.f.Tolerances().Reaction.Value+2*time.Second).WithPolling(200*time.Millisecond).
		Should(Succeed(), "nothing of the run may remain: pods, OCI containers, mounts, cgroups, processes")
	Expect(s.f.Close()).To(Succeed())
}

// reqIDs extracts requirement IDs from labels.
func reqIDs(labels []string) []string {
	var out []string
	for _, l := range labels {
		if id, ok := strings.CutPrefix(l, spec.ReqLabel); ok {
			out = append(out, id)
		}
	}
	return out
}

// ClauseLabel is the key of the label that names a clause a spec checks: clause:STAT-002.only-if-killed.
const ClauseLabel = spec.ClauseLabel

// clauseIDs extracts clause IDs from labels.
func clauseIDs(labels []string) []string {
	var out []string
	for _, l := range labels {
		if id, ok := strings.CutPrefix(l, ClauseLabel); ok {
			out = append(out, id)
		}
	}
	return out
}

// req labels a spec with the requirements it checks: req:ID for a requirement's ID, and for a
// clause's ID (spec.STAT002OnlyIfKilled) both clause:ID and req: of its requirement, so that a spec of a
// clause is a spec of its requirement too. A spec labelled with a requirement's ID alone checks
// the requirement, not any one of its clauses.
func req(ids ...string) Labels {
	out := make(Labels, 0, len(ids))
	add := func(l string) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, id := range ids {
		if c, ok := spec.LookupClause(id); ok {
			add(spec.ReqLabel + c.Requirement)
			add(ClauseLabel + id)
			continue
		}
		add(spec.ReqLabel + id)
	}
	return out
}

// profileLabel labels a container with the capability profile it needs.
func profileLabel(p runtimev1.Profile) Labels { return Labels{"profile:" + string(p)} }

// requireProfile skips the current spec when the runtime does not declare an optional profile.
func (s *suite) requireProfile(p runtimev1.Profile) {
	if p == "" || p == spec.ProfileCore {
		return
	}
	if s.f != nil && !s.f.Version.Has(p) {
		Skip(fmt.Sprintf("profile %q is not declared by the runtime (optional)", p))
	}
}

// requireScenario skips the current spec unless the runtime declares every profile the scenario
// needs.
func (s *suite) requireScenario(sc *framework.Scenario) {
	for _, p := range sc.Profiles() {
		s.requireProfile(p)
	}
}

// ordered declares an Ordered container around one scenario: BeforeAll waits for the scenario's
// outcome (and checks that the runtime's events agree with the workloads), DeferCleanup removes
// its pod after the container's specs. body declares the Its, reading the outcome through get.
func (s *suite) ordered(text string, sc *framework.Scenario, body func(get func() *framework.Outcome)) {
	s.scenarios.Add(sc)
	s.judged[sc] = true // by the model spec inside the container (conforms)
	var out *framework.Outcome
	// ContinueOnFailure: one failed requirement must not hide the verdicts of the others.
	Describe(text, Ordered, ContinueOnFailure, scenarioLabels(sc), func() {
		BeforeAll(func(ctx SpecContext) {
			s.requireScenario(sc)
			out = s.scenarios.Await(ctx, sc)
			DeferCleanup(func(ctx SpecContext) {
				Expect(s.scenarios.Cleanup(ctx, sc)).To(Succeed(), "remove pod %s", sc.Short)
			})
			Expect(out.Err).NotTo(HaveOccurred(), "scenario %s", sc.Short)
			expectConsistent(sc, out)
		})
		AfterEach(func(ctx SpecContext) {
			attachTimeline(out)
			s.keepEvidence(ctx, out)
		})
		body(func() *framework.Outcome { return out })
		s.conforms(sc, func(context.Context) *framework.Outcome { return out })
	})
}

// scenarioLabels are the profile labels of a scenario's container: its profile's and those it
// needs.
func scenarioLabels(sc *framework.Scenario) Labels {
	labels := profileLabel(profileOf(sc))
	for _, p := range sc.Needs {
		labels = append(labels, profileLabel(p)...)
	}
	return labels
}

// attachTimeline records the scenario's merged timeline with a failed spec (not printed: the
// failure message holds it as text), so that a report can draw it.
func attachTimeline(out *framework.Outcome) {
	if out == nil || out.Timeline == nil || !CurrentSpecReport().Failed() {
		return
	}
	AddReportEntry(framework.TimelineEntry, out.Timeline.Record(), ReportEntryVisibilityNever)
}

// keepEvidence records the failure evidence of the scenario's pod when the current spec failed,
// before anything removes the pod (framework.KeepEvidence; once per pod); the report names where.
func (s *suite) keepEvidence(ctx SpecContext, out *framework.Outcome) {
	rep := CurrentSpecReport()
	if s.f == nil || out == nil || out.Pod == nil || !rep.Failed() {
		return
	}
	why := fmt.Sprintf("spec %q failed at %s: %s", rep.FullText(), rep.Failure.Location, rep.Failure.Message)
	if err := s.f.KeepEvidence(ctx, out.Pod, why); err != nil {
		AddReportEntry("evidence", err.Error())
		return
	}
	if out.EvidenceErr != nil {
		AddReportEntry("evidence", out.EvidenceErr.Error())
	}
	if dir := s.f.Config().EvidenceDir; dir != "" && s.f.KeptEvidence(out.Pod.Name) {
		AddReportEntry("evidence", fmt.Sprintf("status, events and logs of %s in %s", out.Pod.Name, filepath.Join(dir, out.Pod.Name)))
	}
}

func profileOf(sc *framework.Scenario) runtimev1.Profile {
	if sc.Profile == "" {
		return spec.ProfileCore
	}
	return sc.Profile
}

// await gets a shared scenario's outcome inside a spec (tables), skipping the spec when the
// runtime does not declare the scenario's profile; the first caller registers the cleanup for the
// end of the suite (AfterSuite removes every launched scenario).
func (s *suite) await(ctx context.Context, sc *framework.Scenario) *framework.Outcome {
	out := s.awaitRun(ctx, sc)
	expectConsistent(sc, out)
	return out
}

// awaitRun is await without the check that the runtime's events match the workloads' reports:
// the model spec judges the history first, then checks it (conforms).
func (s *suite) awaitRun(ctx context.Context, sc *framework.Scenario) *framework.Outcome {
	s.requireScenario(sc)
	out := s.scenarios.Await(ctx, sc)
	DeferCleanup(func(ctx SpecContext) {
		attachTimeline(out)
		s.keepEvidence(ctx, out)
	})
	Expect(out.Err).NotTo(HaveOccurred(), "scenario %s", sc.Short)
	return out
}

// expectConsistent fails the spec when the runtime's events do not match what the workloads
// report (a scenario refused by the runtime has no workloads).
func expectConsistent(sc *framework.Scenario, out *framework.Outcome) {
	if !sc.Refused {
		Expect(out.Timeline.Consistent()).To(Succeed(), "the runtime's events must match what the workloads report")
	}
}
