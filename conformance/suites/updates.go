package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

// The in-place update specs (profile update, docs/spec/update.md). One long scenario applies a
// table of accepted changes to a running pod in one update and then tries a table of refused
// ones; smaller scenarios cover containers waiting to start or restart, init containers and
// terminal mains, the deadline and the grace period.

// updMark is the environment variable an update sets to show which definition an instance runs.
const updMark = "PODSPEC_UPDATE_GEN"

// restartRow is an accepted change that must replace the running instance (UPD-007, UPD-011).
type restartRow struct {
	container  string
	stopSignal string
	// sees checks what the new instance reports about itself.
	sees func(r *probe.Report) error
}

// resizeRow is a resource change applied to the running instance (UPD-010).
type resizeRow struct {
	resource string
	got      func(c probe.CgroupLimits) int64
	want     int64
}

// refusedRow is a change an update may not make (UPD-001, UPD-002, validator findings).
type refusedRow struct {
	rule   string // a rule the findings must include
	path   string // its field path
	mutate func(*v1alpha1.Pod)
}

// updateRecord is what the live-update scenario's Drive saw, for the specs.
type updateRecord struct {
	mu          sync.Mutex
	image       string
	before      *fw.PodStatusView // once every container ran, before any update
	accepted    *fw.Result        // the update with the table of accepted changes
	resize      *fw.Result        // then the live resize of sized, an update of its own
	noop        *fw.Result        // the same manifest again
	labels      *fw.Result        // a labels-only update after the refusals
	labelsGen   int64             // its generation: 4, or 3 if the resize was refused
	polls       []genPoll         // statuses read while the first update took effect
	refused     map[string]*refusedOutcome
	terminating *fw.Result // an update while the stop sequence runs
}

// genPoll is one status read: when it ended and the observedGeneration it showed.
type genPoll struct {
	ended    time.Time
	observed int64
}

// refusedOutcome is one refused update with the pod before and after it.
type refusedOutcome struct {
	res              *fw.Result
	want             []string // "RULE path" of the validator's error findings
	before, after    string   // status JSON
	eventsB, eventsA int
}

// hasArg reports whether a report's command line contains arg.
func hasArg(arg string) func(r *probe.Report) error {
	return func(r *probe.Report) error {
		if !slices.Contains(r.Args, arg) {
			return fmt.Errorf("the new instance runs %q, which lacks %q", r.Args, arg)
		}
		return nil
	}
}

// hasEnv reports whether a report's environment holds name=value.
func hasEnv(name, value string) func(r *probe.Report) error {
	return func(r *probe.Report) error {
		if r.Env[name] != value {
			return fmt.Errorf("the new instance sees %s=%q, want %q", name, r.Env[name], value)
		}
		return nil
	}
}

// instanceReports groups a container's workload reports by instance (in start order).
func instanceReports(tl *fw.Timeline, container string) [][]*probe.Report {
	var out [][]*probe.Report
	for _, e := range tl.Entries {
		p := e.Probe
		if p == nil || p.Fallback || p.Container != container || p.Role != probe.RoleWorkload {
			continue
		}
		switch p.Type {
		case probe.TypeStart:
			out = append(out, nil)
		case probe.TypeReport:
			if len(out) > 0 {
				out[len(out)-1] = append(out[len(out)-1], p.Report)
			}
		}
	}
	return out
}

// beforeStop restricts a matcher to entries before the pod's stop request (the specs about
// updates look at what happened while the pod ran).
func beforeStop(tl *fw.Timeline, m fw.Matcher) fw.Matcher {
	stop, ok := tl.First(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
	return func(e fw.Entry) bool { return m(e) && (!ok || e.Time.Before(stop.Time)) }
}

// statusJSON renders a status for byte comparison.
func statusJSON(st *fw.PodStatusView) string {
	b, _ := json.Marshal(st.PodStatus)
	return string(b)
}

// expectedUpdateFindings runs the validator in process on the pod's old and new manifests, as
// `podspec validate --update-from OLD NEW` does, and returns its error findings as "RULE path".
func expectedUpdateFindings(dir string, oldPod, newPod *v1alpha1.Pod) ([]string, error) {
	write := func(name string, p *v1alpha1.Pod) (string, error) {
		b, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return "", err
		}
		path := filepath.Join(dir, name)
		return path, os.WriteFile(path, b, 0o644)
	}
	oldFile, err := write("old.json", oldPod)
	if err != nil {
		return nil, err
	}
	newFile, err := write("new.json", newPod)
	if err != nil {
		return nil, err
	}
	v, err := validator.New(validator.Options{})
	if err != nil {
		return nil, err
	}
	results, err := v.Update(oldFile, newFile)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range results {
		for _, f := range r.Findings {
			if f.Severity == finding.Error && !f.Suppressed {
				out = append(out, f.Rule+" "+f.Path)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *suite) registerUpdates() {
	s.registerLiveUpdate()
	s.registerWaitingUpdate()
	s.registerDeadlineUpdates()
	s.registerGraceUpdate()
	s.registerUpdateThenStop()
	s.registerUpdateEndsTerminally()
	s.registerFirstGeneration()
}

// registerFirstGeneration: one labels-only update of a running pod. metadata.generation is not
// in the contract's status, so the generation a pod was created at (ID-008) shows in its first
// accepted update's: one more. The Drive waits (bounded) for any UpdateApplied, not for
// generation 2, so that the spec, not the scenario, judges the number.
func (s *suite) registerFirstGeneration() {
	pod := func() *fw.PodBuilder {
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Loop())
	}
	sc := &fw.Scenario{
		Short:   "update-first-gen",
		Profile: spec.ProfileUpdate,
		Pod:     pod(),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app running", p.PodTimeout(), fw.StartRecorded("app")); err != nil {
				return err
			}
			if err := p.UpdateAccepted(ctx, pod().Labels(map[string]string{"updated": "yes"})); err != nil {
				return err
			}
			// A labels-only update takes effect at once. A runtime that created the pod at
			// generation 0 may count it as applied already (observedGeneration 1) and record no
			// UpdateApplied: a bounded wait, then the spec judges.
			if _, err := p.WaitFor(ctx, "the update's UpdateApplied", p.PodTimeout()/4, func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventUpdateApplied, ""))
				return ok
			}); err != nil && ctx.Err() != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("The first update of a pod", sc, func(get func() *fw.Outcome) {
		It("is generation 2: the pod was created at generation 1", req(spec.ID008), func() {
			tl := get().Timeline
			applied := tl.All(fw.RuntimeEv(runtimev1.EventUpdateApplied, ""))
			Expect(applied).To(HaveLen(1), "one accepted update, one UpdateApplied (of generation 2)\n%s", tl)
			Expect(applied[0].Runtime.Generation).To(BeEquivalentTo(2), "the generation of the first accepted update, one more than the pod's generation at creation\n%s", tl)
			Expect(get().Final.ObservedGeneration).To(BeEquivalentTo(2), "%s", get().Final)
		})
	})
}

// liveBackoff is the restart back-off of the live-update pod: long, so that a replacement that
// waited for it is told apart from a slow container creation.
const liveBackoff = 60 * time.Second

// liveUpdatePod is the pod of the live-update scenario at generation 1 (gen2 false) or with
// the table of accepted changes (gen2 true; img is the new image of "img"); resized gives sized
// its new limits too. The live resize is an update of its own, so that a runtime that cannot
// resize a running instance, and refuses that update, is judged on the others all the same.
func liveUpdatePod(gen2, resized bool, img string) *fw.PodBuilder {
	mark := fw.WithEnv(updMark, "1")
	cmd := fw.Loop().Report().On("SIGUSR1", "exit:0:3") // the replaced instance exits 3 (UPD-008)
	args := fw.Loop().Report().Read("/data/kept")
	sized, sizedR := fw.WithLimits("500m", "64Mi", "64"), fw.WithLimits("", "64Mi", "")
	if gen2 {
		mark = fw.WithEnv(updMark, "2")
		cmd = fw.Loop().Report().On("SIGUSR1", "exit:0:0").Stdout("gen2")
		args = args.Stdout("gen2")
		sizedR = fw.WithLimits("", "96Mi", "")
	}
	if gen2 && resized {
		sized = fw.WithLimits("250m", "96Mi", "96")
	}
	b := fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).ExitPolicy(v1alpha1.ExitPolicyAny).
		Grace(2).Deadline(3600).Backoff(liveBackoff.Seconds(), 1, liveBackoff.Seconds(), 600).EmptyDir("data", false).
		Sidecar("side", fw.Loop().Report(), mark).
		Main("steady", fw.Loop().Write("/data/kept", "v1"), fw.WithMount("data", "/data", false)).
		Main("img", fw.Loop().Report()).
		Main("cmd", cmd, fw.WithStopSignal("SIGUSR1")).
		Main("args", args, fw.ArgsOnly(), fw.WithMount("data", "/data", true)).
		Main("env", fw.Loop().Report().On("SIGTERM", "ignore"), mark).
		Main("sized", fw.Loop().Report().ReportWhen("resized"), sized).
		Main("sizedr", fw.Loop().Report(), sizedR, fw.WithResizePolicy(v1alpha1.ResourceMemory, v1alpha1.RestartContainer))
	if gen2 && img != "" {
		b.Mutate(func(p *v1alpha1.Pod) { p.Spec.Containers[1].Image = img })
	}
	return b
}

func (s *suite) registerLiveUpdate() {
	restartRows := []restartRow{
		{"img", "SIGTERM", hasEnv(fw.ImageMarkEnv, "2")},
		{"cmd", "SIGUSR1", hasArg("gen2")},
		{"args", "SIGTERM", hasArg("gen2")},
		{"env", "SIGTERM", hasEnv(updMark, "2")},
		{"side", "SIGTERM", hasEnv(updMark, "2")},
	}
	restartResize := restartRow{"sizedr", "SIGTERM", func(r *probe.Report) error {
		if r.Cgroup.MemoryBytes != 96<<20 {
			return fmt.Errorf("the new instance's memory limit is %d, want %d", r.Cgroup.MemoryBytes, 96<<20)
		}
		return nil
	}}
	resizeRows := []resizeRow{
		{"cpu", func(c probe.CgroupLimits) int64 { return c.CPUQuotaMicros * 100000 / max(c.CPUPeriodMicros, 1) }, 25000},
		{"memory", func(c probe.CgroupLimits) int64 { return c.MemoryBytes }, 96 << 20},
		{"pids", func(c probe.CgroupLimits) int64 { return c.Pids }, 96},
	}
	// gen2 is the manifest as the table update left it and, once the runtime accepted it, the
	// live resize: what every later update starts from.
	gen2 := func(rec *updateRecord) *fw.PodBuilder {
		return liveUpdatePod(true, rec.resize != nil && rec.resize.ExitCode == runtimev1.ExitOK, rec.image)
	}
	refusedRows := map[string]refusedRow{
		"a container's stopSignal": {spec.UPD001, "spec.containers[2].stopSignal", func(p *v1alpha1.Pod) { p.Spec.Containers[2].StopSignal = "SIGUSR2" }},
		"a container's name":       {spec.UPD001, "spec.containers[0].name", func(p *v1alpha1.Pod) { p.Spec.Containers[0].Name = "renamed" }},
		"spec.restartPolicy":       {spec.UPD001, "spec.restartPolicy", func(p *v1alpha1.Pod) { p.Spec.RestartPolicy = v1alpha1.RestartPolicyAlways }},
		"a volume mount": {spec.UPD001, "spec.containers[0].volumeMounts[1].readOnly", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].VolumeMounts[1].ReadOnly = true
		}},
		"an increased activeDeadlineSeconds": {spec.UPD002, "spec.activeDeadlineSeconds", func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = i64(7200) }},
		"a removed activeDeadlineSeconds":    {spec.UPD002, "spec.activeDeadlineSeconds", func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = nil }},
		"a dependency on an unknown container": {spec.DEP001, "spec.containers[0].dependsOn[0].name", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].DependsOn = []v1alpha1.Dependency{{Name: "nobody", Condition: v1alpha1.ConditionStarted}}
		}},
	}
	refusedNames := make([]string, 0, len(refusedRows))
	for name := range refusedRows {
		refusedNames = append(refusedNames, name)
	}
	sort.Strings(refusedNames)

	rec := &updateRecord{refused: map[string]*refusedOutcome{}}
	all := []string{"side", "steady", "img", "cmd", "args", "env", "sized", "sizedr"}
	sc := &fw.Scenario{
		Short:   "update-live",
		Profile: spec.ProfileUpdate,
		Pod:     liveUpdatePod(false, false, ""),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			return s.driveLiveUpdate(ctx, p, rec, all, gen2, refusedRows, refusedNames)
		},
	}
	s.ordered("An in-place update of a running pod", sc, func(get func() *fw.Outcome) {
		newReport := func(tl *fw.Timeline, container string) *probe.Report {
			reps := instanceReports(tl, container)
			Expect(len(reps)).To(BeNumerically(">=", 2), "%s: a second instance\n%s", container, tl)
			Expect(reps[1]).NotTo(BeEmpty(), "%s: the new instance reports\n%s", container, tl)
			return reps[1][0]
		}
		replaced := func(row restartRow) {
			tl := get().Timeline
			inst := tl.Instances(row.container)
			starts := tl.All(beforeStop(tl, fw.RuntimeEv(runtimev1.EventContainerStarted, row.container)))
			Expect(inst).To(HaveLen(2), "%s: one replacement, no more\n%s", row.container, tl)
			Expect(starts).To(HaveLen(2), "%s: the runtime recorded one replacement start\n%s", row.container, tl)
			sig, ok := tl.First(runtimeSignal(row.container, row.stopSignal))
			Expect(ok).To(BeTrue(), "%s: the runtime sends its stopSignal %s\n%s", row.container, row.stopSignal, tl)
			updStart := rec.accepted.Ended.Add(-rec.accepted.Duration)
			Expect(sig.Time.Before(updStart)).To(BeFalse(), "%s: the signal follows the update\n%s", row.container, tl)
			got, ok := tl.First(probeSignal(row.container, row.stopSignal))
			Expect(ok && got.Time.Before(inst[1].Start)).To(BeTrue(), "%s: the old instance receives %s before the new one starts\n%s", row.container, row.stopSignal, tl)
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, row.container))
			Expect(exits).NotTo(BeEmpty(), "%s: the old instance's exit\n%s", row.container, tl)
			// Creating a container may take seconds on a loaded machine: the bound is the back-off
			// the pod configures (liveBackoff), which a replacement must not wait for.
			gap := starts[1].Time.Sub(exits[0].Time)
			Expect(gap).To(BeNumerically("<", liveBackoff), "%s: the new instance started %v after the old one ended: a replacement waits for no back-off (the pod's is %v) and ignores restartPolicy Never\n%s", row.container, gap, liveBackoff, tl)
			Expect(row.sees(newReport(tl, row.container))).To(Succeed(), "%s: the new instance runs the new definition", row.container)
		}
		DescribeTable("replaces the running instance of a changed container: stop signal, then a new instance of the new definition without back-off",
			func(row restartRow) { replaced(row) },
			Entry("image of a main container", req(spec.UPD007), restartRows[0]),
			Entry("command (and its stop signal SIGUSR1)", req(spec.UPD007), restartRows[1]),
			Entry("args", req(spec.UPD007), restartRows[2]),
			Entry("env", req(spec.UPD007), restartRows[3]),
			Entry("env of a sidecar", req(spec.UPD007), restartRows[4]),
			Entry("memory with resizePolicy RestartContainer", req(spec.UPD011), restartResize),
		)
		It("sends SIGKILL after terminationGracePeriodSeconds to an instance that ignores its stop signal", req(spec.UPD007), func() {
			tl := get().Timeline
			tol := s.f.Tolerances()
			grace := 2 * time.Second
			from, to := runtimeSignal("env", "SIGTERM"), runtimeSignal("env", "SIGKILL")
			Expect(tl.AtLeast("env: update's stop signal to SIGKILL", from, to, grace, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("env: update's stop signal to SIGKILL", from, to, grace, tol.Reaction)).To(Succeed())
			Expect(newReport(tl, "env").Env[updMark]).To(Equal("2"))
			Expect(get().Final.Container("img").Image).To(Equal(rec.image), "status shows the new image of img")
		})
		DescribeTable("applies a resource change to the running instance: same containerID and process, the new limit in its cgroup",
			func(row resizeRow) {
				tl := get().Timeline
				Expect(rec.resize).NotTo(BeNil(), "the resize update was not tried")
				Expect(rec.resize.ExitCode).To(Equal(runtimev1.ExitOK), "the update of sized's resources\n%s", rec.resize)
				Expect(tl.NotRestarted("sized")).To(Succeed())
				Expect(tl.NeverHappened("a signal to sized before the stop", beforeStop(tl, fw.RuntimeEv(runtimev1.EventSignalSent, "sized")))).To(Succeed())
				Expect(get().Final.Container("sized").ContainerID).To(Equal(rec.before.Container("sized").ContainerID), "containerID of sized")
				reps := instanceReports(tl, "sized")
				Expect(reps).To(HaveLen(1))
				Expect(reps[0]).To(HaveLen(2), "sized reports at start and once more after UpdateApplied generation 3\n%s", tl)
				first, after := reps[0][0], reps[0][1]
				Expect(first.PID).To(Equal(after.PID), "the same process reports")
				Expect(row.got(first.Cgroup)).NotTo(Equal(row.want), "%s before the update: %+v", row.resource, first.Cgroup)
				Expect(row.got(after.Cgroup)).To(Equal(row.want), "%s seen from inside the instance after the update: %+v", row.resource, after.Cgroup)
			},
			Entry("cpu", req(spec.UPD010), resizeRows[0]),
			Entry("memory", req(spec.UPD010), resizeRows[1]),
			Entry("pids", req(spec.UPD010), resizeRows[2]),
		)
		It("leaves unchanged containers and the pod's volumes untouched", req(spec.UPD009), func() {
			tl := get().Timeline
			Expect(tl.NotRestarted("steady")).To(Succeed())
			Expect(tl.NeverHappened("a signal to steady before the stop", beforeStop(tl, fw.RuntimeEv(runtimev1.EventSignalSent, "steady")))).To(Succeed())
			Expect(get().Final.Container("steady").ContainerID).To(Equal(rec.before.Container("steady").ContainerID), "containerID of steady")
			Expect(newReport(tl, "args").Files["/data/kept"]).To(Equal("v1"), "the emptyDir keeps what steady wrote before the update")
			for _, c := range all {
				want := 1
				if slices.ContainsFunc(restartRows, func(r restartRow) bool { return r.container == c }) || c == "sizedr" {
					want = 2
				}
				Expect(tl.All(beforeStop(tl, fw.RuntimeEv(runtimev1.EventContainerStarted, c)))).To(HaveLen(want), "%s: starts (the no-op and the labels-only update start nothing)\n%s", c, tl)
			}
		})
		It("does not count the replaced instances' ends for the restart policy, the exit policy or the pod result", req(spec.UPD008), func() {
			out := get()
			tl := out.Timeline
			first, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "cmd"))
			Expect(ok && first.Runtime.ExitCode != nil && *first.Runtime.ExitCode == 3).To(BeTrue(), "cmd's replaced instance exits 3 on SIGUSR1\n%s", tl)
			Expect(tl.NeverHappened("PolicyFired (exitPolicy Any)", fw.RuntimeEv(runtimev1.EventPolicyFired, ""))).To(Succeed())
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonStopped), "the pod ends by the harness's stop\n%s", out.Final)
			Expect(out.Final.Phase).To(Equal(v1alpha1.PodSucceeded), "the final stop's exits are 0 or SIGKILL at the budget end: only a counted replacement (exit 3) fails the pod\n%s", out.Final)
			Expect(out.Final.DecidedBy).To(BeEmpty(), "%s", out.Final)
		})
		It("increases metadata.generation by one per accepted change and not on an update that changes nothing", req(spec.UPD005), func() {
			tl := get().Timeline
			Expect(rec.accepted.ExitCode).To(Equal(runtimev1.ExitOK), "%s", rec.accepted)
			Expect(rec.noop.ExitCode).To(Equal(runtimev1.ExitOK), "an update that changes nothing is accepted\n%s", rec.noop)
			Expect(rec.labels.ExitCode).To(Equal(runtimev1.ExitOK), "%s", rec.labels)
			var gens []int64
			for _, e := range tl.All(fw.RuntimeEv(runtimev1.EventUpdateApplied, "")) {
				gens = append(gens, e.Runtime.Generation)
			}
			// A runtime that cannot resize may refuse the resize update (UPD-010 judges that);
			// then it takes no generation either.
			want, what := []int64{2, 3, 4}, "the table update (2), the resize (3), then the labels update (4)"
			if rec.resize != nil && rec.resize.ExitCode != runtimev1.ExitOK {
				want, what = []int64{2, 3}, "the table update (2), then the labels update (3), the resize having been refused"
			}
			Expect(gens).To(Equal(want), "UpdateApplied generations: %s: the no-op and the refused updates take no generation\n%s", what, tl)
			Expect(get().Final.ObservedGeneration).To(BeEquivalentTo(want[len(want)-1]), "%s", get().Final)
		})
		It("reaches observedGeneration only once the changes took effect, and records UpdateApplied then", req(spec.UPD006), func() {
			tl := get().Timeline
			kill, ok := tl.First(runtimeSignal("env", "SIGKILL"))
			Expect(ok).To(BeTrue(), "env's SIGKILL\n%s", tl)
			inWindow := 0
			for _, p := range rec.polls {
				if p.ended.Before(kill.Time) {
					inWindow++
					Expect(p.observed).To(BeNumerically("<", 2), "a status read while env's old instance still ran (before its SIGKILL) shows observedGeneration %d\n%s", p.observed, tl)
				}
			}
			Expect(inWindow).To(BeNumerically(">", 0), "no status was read while the update was in flight (%d reads)", len(rec.polls))
			applied, ok := tl.First(fw.UpdateAppliedEv(2))
			Expect(ok).To(BeTrue(), "UpdateApplied generation 2\n%s", tl)
			for _, c := range append([]string{"sizedr"}, "img", "cmd", "args", "env", "side") {
				starts := tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, c))
				Expect(len(starts)).To(BeNumerically(">=", 2), "%s\n%s", c, tl)
				Expect(starts[1].Runtime.Seq).To(BeNumerically("<", applied.Runtime.Seq), "%s's new instance starts before UpdateApplied\n%s", c, tl)
			}
			Expect(tl.All(fw.UpdateAppliedEv(2))).To(HaveLen(1), "one UpdateApplied per generation")
		})
		DescribeTable("refuses a change the validator rejects, with its rule IDs and field paths, and leaves the pod as it was",
			func(name string) {
				r := rec.refused[name]
				Expect(r).NotTo(BeNil(), "the refused update %q was not tried", name)
				row := refusedRows[name]
				Expect(r.want).To(ContainElement(row.rule+" "+row.path), "the validator's own findings for this change")
				Expect(r.res.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", r.res)
				Expect(r.res.Error).NotTo(BeNil(), "%s", r.res)
				Expect(r.res.Error.Code).To(Equal(runtimev1.CodeInvalidManifest), "%s", r.res)
				var got []string
				for _, f := range r.res.Error.Findings {
					if f.Severity == finding.Error {
						got = append(got, f.Rule+" "+f.Path)
					}
				}
				sort.Strings(got)
				Expect(got).To(Equal(r.want), "error findings (rule and path) of the runtime, against `podspec validate --update-from`")
				Expect(r.after).To(Equal(r.before), "the pod's status after the refusal")
				Expect(r.eventsA).To(Equal(r.eventsB), "no event recorded by the refusal")
			},
			func() []TableEntry {
				var out []TableEntry
				for _, name := range refusedNames {
					out = append(out, Entry(name, req(spec.UPD003), name))
				}
				return out
			}(),
		)
		It("refuses an update of a terminating and of a terminal pod", req(spec.UPD004), func(ctx SpecContext) {
			out := get()
			Expect(rec.terminating).NotTo(BeNil(), "no update was tried while the pod terminated")
			Expect(rec.terminating.ExitCode).To(Equal(runtimev1.ExitConflict), "update while terminating\n%s", rec.terminating)
			Expect(out.Timeline.NeverHappened("UpdateApplied of the refused update", fw.UpdateAppliedEv(rec.labelsGen+1))).To(Succeed())
			_, res, err := out.Pod.Update(ctx, gen2(rec).Labels(map[string]string{"after": "end"}))
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(Equal(runtimev1.ExitConflict), "update of a terminal pod\n%s", res)
			Expect(res.Error).NotTo(BeNil())
			Expect(res.Error.Code).To(Equal(runtimev1.CodeConflict), "%s", res)
		})
	})
}

// driveLiveUpdate runs the live-update scenario: the table update with status polls, the live
// resize, the no-op, the refused updates, a labels-only update, then a stop with an update
// while it runs.
func (s *suite) driveLiveUpdate(ctx context.Context, p *fw.Pod, rec *updateRecord, all []string, gen2 func(*updateRecord) *fw.PodBuilder, refused map[string]refusedRow, refusedNames []string) error {
	timeout := p.PodTimeout()
	if _, err := p.WaitFor(ctx, "every container running", timeout, fw.AllStarted(all...)); err != nil {
		return err
	}
	img, err := s.f.MarkedImage(ctx, "2")
	if err != nil {
		return err
	}
	rec.image = img
	if rec.before, err = p.Status(ctx); err != nil {
		return err
	}
	// Poll the status while the update takes effect (UPD-006).
	pollCtx, stopPolls := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for pollCtx.Err() == nil {
			st, err := s.f.RT.Status(pollCtx, p.Name)
			if err == nil {
				rec.mu.Lock()
				rec.polls = append(rec.polls, genPoll{ended: time.Now(), observed: st.ObservedGeneration})
				rec.mu.Unlock()
			}
			select {
			case <-pollCtx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	_, rec.accepted, err = p.Update(ctx, gen2(rec))
	if err == nil && rec.accepted.ExitCode != runtimev1.ExitOK {
		err = &fw.CommandError{Result: rec.accepted}
	}
	if err == nil {
		_, err = p.WaitFor(ctx, "UpdateApplied generation 2", timeout, fw.UpdateApplied(2))
	}
	stopPolls()
	wg.Wait()
	if err != nil {
		return err
	}
	// The live resize, an update of its own (UPD-010). A runtime that cannot resize may refuse
	// it (the resize specs then fail); the rest of the scenario goes on from generation 2.
	if _, rec.resize, err = p.Update(ctx, liveUpdatePod(true, true, rec.image)); err != nil {
		return err
	}
	rec.labelsGen = 3
	if rec.resize.ExitCode == runtimev1.ExitOK {
		rec.labelsGen = 4
		if _, err := p.WaitFor(ctx, "UpdateApplied generation 3", timeout, fw.UpdateApplied(3)); err != nil {
			return err
		}
		// The live resize has taken effect: ask sized what its cgroup says now.
		if err := p.Touch("resized"); err != nil {
			return err
		}
		if _, err := p.WaitFor(ctx, "sized's report after the resize", timeout, func(tl *fw.Timeline) bool {
			reps := instanceReports(tl, "sized")
			return len(reps) > 0 && len(reps[len(reps)-1]) >= 2
		}); err != nil {
			return err
		}
	}
	if _, rec.noop, err = p.Update(ctx, gen2(rec)); err != nil {
		return err
	}
	oldPod := p.Built(gen2(rec))
	dir, err := os.MkdirTemp("", "podspec-upd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, name := range refusedNames {
		row := refused[name]
		r := &refusedOutcome{}
		b := gen2(rec).Mutate(row.mutate)
		if r.want, err = expectedUpdateFindings(dir, oldPod, p.Built(b)); err != nil {
			return fmt.Errorf("validate %q offline: %w", name, err)
		}
		st, err := p.Status(ctx)
		if err != nil {
			return err
		}
		tl, err := p.Timeline(ctx)
		if err != nil {
			return err
		}
		r.before, r.eventsB = statusJSON(st), len(tl.RuntimeEvents())
		if _, r.res, err = p.Update(ctx, b); err != nil {
			return err
		}
		if st, err = p.Status(ctx); err != nil {
			return err
		}
		if tl, err = p.Timeline(ctx); err != nil {
			return err
		}
		r.after, r.eventsA = statusJSON(st), len(tl.RuntimeEvents())
		rec.refused[name] = r
	}
	labels := map[string]string{"updated": "yes"}
	if _, rec.labels, err = p.Update(ctx, gen2(rec).Labels(labels)); err != nil {
		return err
	}
	if _, err := p.WaitFor(ctx, fmt.Sprintf("UpdateApplied generation %d", rec.labelsGen), timeout, fw.UpdateApplied(rec.labelsGen)); err != nil {
		return err
	}
	// env ignores SIGTERM: the stop sequence lasts the 2 s grace period.
	if err := p.Stop(ctx, nil, false); err != nil {
		return err
	}
	labels = map[string]string{"updated": "while-terminating"}
	_, rec.terminating, err = p.Update(ctx, gen2(rec).Labels(labels))
	return err
}

// registerWaitingUpdate: containers waiting to start or to restart take the change at their
// next start (UPD-012); a started init container and a terminal main container are not brought
// back (UPD-013).
func (s *suite) registerWaitingUpdate() {
	mark := func(v string) fw.ContainerOpt { return fw.WithEnv(updMark, v) }
	pod := func(v string) *fw.PodBuilder {
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Backoff(5, 1, 5, 600).
			Init("i1", fw.Exit(0).Report(), mark(v)).
			Main("done", fw.Exit(0).Report(), mark(v)).
			Main("crasher", fw.Loop().Codes("1", "loop").Report(), mark(v), fw.WithRestartPolicy(v1alpha1.RestartPolicyOnFailure)).
			Main("gate", fw.Loop(), fw.Readiness(fw.CheckMarker("gate-ready"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1})).
			Main("later", fw.Loop().Report(), mark(v), fw.DependsOn("gate", v1alpha1.ConditionReady))
	}
	var updated *fw.Result
	sc := &fw.Scenario{
		Short:   "update-waiting",
		Profile: spec.ProfileUpdate,
		Pod:     pod("1"),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			timeout := p.PodTimeout()
			if _, err := p.WaitFor(ctx, "done exited, crasher waiting to restart, gate running", timeout, func(tl *fw.Timeline) bool {
				_, doneExited := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "done"))
				_, backoff := tl.First(fw.RuntimeEv(runtimev1.EventContainerRestarting, "crasher"))
				return doneExited && backoff && tl.Started("gate")
			}); err != nil {
				return err
			}
			var err error
			if _, updated, err = p.Update(ctx, pod("2")); err != nil {
				return err
			}
			if updated.ExitCode != runtimev1.ExitOK {
				return &fw.CommandError{Result: updated}
			}
			if err := p.Touch("gate-ready"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "later and crasher's second instance", timeout, func(tl *fw.Timeline) bool {
				return tl.Started("later") && len(tl.Instances("crasher")) >= 2
			}); err != nil {
				return err
			}
			// Time for a wrong extra restart to show before the stop.
			time.Sleep(s.f.Tolerances().Reaction.Value)
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("An update of containers that wait", sc, func(get func() *fw.Outcome) {
		It("gives a container waiting to start or to restart the change at its next start, without an extra restart", req(spec.UPD012), func() {
			tl := get().Timeline
			for _, c := range []string{"later", "crasher"} {
				Expect(tl.NeverHappened("a signal to "+c+" before the stop", beforeStop(tl, fw.RuntimeEv(runtimev1.EventSignalSent, c)))).To(Succeed())
			}
			Expect(tl.NotRestarted("later")).To(Succeed())
			Expect(instanceReports(tl, "later")[0][0].Env[updMark]).To(Equal("2"), "later starts with the new env")
			Expect(tl.Instances("crasher")).To(HaveLen(2), "crasher: the planned restart only\n%s", tl)
			reps := instanceReports(tl, "crasher")
			Expect(reps[1]).NotTo(BeEmpty(), "%s", tl)
			Expect(reps[1][0].Env[updMark]).To(Equal("2"), "crasher's restart after its back-off runs the new env")
		})
		It("never re-runs a started init container nor restarts a main container that exited terminally", req(spec.UPD013), func() {
			tl := get().Timeline
			Expect(tl.NotRestarted("i1")).To(Succeed())
			Expect(tl.NotRestarted("done")).To(Succeed())
			Expect(get().Final.Terminated("i1")).NotTo(BeNil(), "%s", get().Final)
			Expect(get().Final.Terminated("i1").ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
	})
}

// registerDeadlineUpdates: a changed activeDeadlineSeconds counts from startedAt, and one that
// has already passed begins the stop sequence at once (UPD-014).
func (s *suite) registerDeadlineUpdates() {
	app := func(b *fw.PodBuilder) *fw.PodBuilder {
		return b.RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Loop())
	}
	var passedUpdate, laterUpdate *fw.Result
	// waitRunning waits until app runs and the runtime has recorded its start (ContainerStarted:
	// the workload's own start report can come first, and startedAt is set with the record),
	// then until startedAt + after.
	waitRunning := func(ctx context.Context, p *fw.Pod, after time.Duration) error {
		if _, err := p.WaitFor(ctx, "app running, its start recorded", p.PodTimeout(), fw.StartRecorded("app")); err != nil {
			return err
		}
		st, err := p.Status(ctx)
		if err != nil {
			return err
		}
		if st.StartedAt == nil {
			return fmt.Errorf("no status.startedAt while app runs\n%s", st)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(st.StartedAt.Add(after))):
			return nil
		}
	}
	passed := &fw.Scenario{
		Short: "update-deadline-passed", Profile: spec.ProfileUpdate, Pod: app(fw.NewPod()),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := waitRunning(ctx, p, 2*time.Second); err != nil {
				return err
			}
			var err error
			_, passedUpdate, err = p.Update(ctx, app(fw.NewPod().Deadline(1)))
			return err
		},
	}
	tol := func() fw.Tolerances { return s.f.Tolerances() }
	s.ordered("An update setting a deadline that has already passed", passed, func(get func() *fw.Outcome) {
		It("begins the stop sequence at once, with reason DeadlineExceeded", req(spec.UPD014), func() {
			out := get()
			Expect(passedUpdate.ExitCode).To(Equal(runtimev1.ExitOK), "%s", passedUpdate)
			term, ok := out.Timeline.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
			Expect(ok).To(BeTrue(), "%s", out.Timeline)
			updStart := passedUpdate.Ended.Add(-passedUpdate.Duration)
			Expect(term.Time.Before(updStart)).To(BeFalse(), "the stop follows the update\n%s", out.Timeline)
			late := term.Time.Sub(passedUpdate.Ended)
			Expect(late).To(BeNumerically("<=", tol().Reaction.Value), "PodTerminating %v after the update returned (%s)\n%s", late, tol().Reaction.Name, out.Timeline)
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonDeadlineExceeded), "%s", out.Final)
		})
	})
	// The update comes at least Reaction + 1 s after startedAt (elapsed) and sets a deadline D
	// that has not passed yet: counted from startedAt it fires at startedAt + D; counted from the
	// update, more than Reaction later. D is chosen when the update is sent, so that a slow start
	// cannot make it pass before the runtime has the update.
	var laterDeadline time.Duration
	later := &fw.Scenario{
		Short: "update-deadline-later", Profile: spec.ProfileUpdate, Pod: app(fw.NewPod().Deadline(600)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := waitRunning(ctx, p, tol().Reaction.Value+time.Second); err != nil {
				return err
			}
			st, err := p.Status(ctx)
			if err != nil {
				return err
			}
			elapsed := time.Since(*st.StartedAt)
			laterDeadline = (elapsed + tol().Reaction.Value + 2*time.Second + time.Second - 1).Truncate(time.Second)
			_, laterUpdate, err = p.Update(ctx, app(fw.NewPod().Deadline(int64(laterDeadline/time.Second))))
			return err
		},
	}
	s.ordered("An update decreasing the deadline", later, func(get func() *fw.Outcome) {
		It("takes effect at once, still counted from status.startedAt", req(spec.UPD014), func() {
			out := get()
			Expect(laterUpdate.ExitCode).To(Equal(runtimev1.ExitOK), "%s", laterUpdate)
			Expect(out.Final.StartedAt).NotTo(BeNil())
			started := *out.Final.StartedAt
			Expect(laterUpdate.Ended.Before(started.Add(laterDeadline))).To(BeTrue(),
				"test set-up: the update (deadline %v) returned %v after startedAt, after that deadline: the machine is too slow for this scenario", laterDeadline, laterUpdate.Ended.Sub(started))
			term, ok := out.Timeline.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
			Expect(ok).To(BeTrue(), "%s", out.Timeline)
			gap := term.Time.Sub(started)
			Expect(gap).To(BeNumerically(">=", laterDeadline-tol().EarlyMargin.Value), "the new deadline fired %v after startedAt, want %v\n%s", gap, laterDeadline, out.Timeline)
			Expect(gap).To(BeNumerically("<=", laterDeadline+tol().Reaction.Value), "the new deadline fired %v after startedAt, want %v (+%s)\n%s", gap, laterDeadline, tol().Reaction.Name, out.Timeline)
			Expect(out.Final.Reason).To(Equal(v1alpha1.ReasonDeadlineExceeded), "%s", out.Final)
		})
	})
}

// registerGraceUpdate: a changed terminationGracePeriodSeconds is the next stop's budget
// (UPD-015).
func (s *suite) registerGraceUpdate() {
	pod := func(grace int64) *fw.PodBuilder {
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(grace).
			Main("app", fw.Loop().On("SIGTERM", "ignore"))
	}
	sc := &fw.Scenario{
		Short: "update-grace", Profile: spec.ProfileUpdate, Pod: pod(30),
		// The update sets 3 s: above the minimum stop window (STOP-008), far below the old 30 s.
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app running", p.PodTimeout(), fw.AllStarted("app")); err != nil {
				return err
			}
			if err := p.UpdateAccepted(ctx, pod(3)); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "UpdateApplied generation 2", p.PodTimeout(), fw.UpdateApplied(2)); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("An update of terminationGracePeriodSeconds", sc, func(get func() *fw.Outcome) {
		It("makes the new value the grace budget of the next stop without a grace period of its own", req(spec.UPD015), func() {
			tl := get().Timeline
			tol := s.f.Tolerances()
			// The grace budget counts from the moment the stop sequence begins (STOP-003).
			from, to := fw.RuntimeEv(runtimev1.EventPodTerminating, ""), runtimeSignal("app", "SIGKILL")
			Expect(tl.AtLeast("stop sequence to app's SIGKILL", from, to, 3*time.Second, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("stop sequence to app's SIGKILL (the updated grace is 3 s, the old one 30 s)", from, to, 3*time.Second, tol.Reaction)).To(Succeed())
		})
	})
}

// registerUpdateEndsTerminally: an update restarts a main container whose new definition cannot
// start (its command does not exist; restartPolicy Never), while another main container keeps
// the pod running. The replacement's failed start is a terminal exit, and a container that "has
// exited terminally meanwhile" counts as taken effect (UPD-006): UpdateApplied of generation 2
// and status.observedGeneration 2 follow it while the pod still runs, not only once it finished.
func (s *suite) registerUpdateEndsTerminally() {
	pod := func(gen string) *fw.PodBuilder {
		opts := []fw.ContainerOpt{fw.WithEnv(updMark, gen)}
		if gen == "2" {
			opts = append(opts, func(c *v1alpha1.Container) { c.Command, c.Args = []string{"/no/such/program"}, nil })
		}
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("app", fw.Loop(), opts...).
			Main("keep", fw.Loop())
	}
	var read *fw.PodStatusView // one status read a reaction time after the failed start, before the stop
	var readAt time.Time
	sc := &fw.Scenario{
		Short: "update-ends-terminally", Profile: spec.ProfileUpdate, Pod: pod("1"),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app and keep running", p.PodTimeout(), fw.StartRecorded("app", "keep")); err != nil {
				return err
			}
			if err := p.UpdateAccepted(ctx, pod("2")); err != nil {
				return err
			}
			// The old instance exits at the update's SIGTERM; the new definition's start fails.
			if _, err := p.WaitFor(ctx, "app's old instance and its replacement to end", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return len(tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "app"))) >= 2
			}); err != nil {
				return err
			}
			// A reaction time for the runtime to see that the change took effect, then one read.
			time.Sleep(s.f.Tolerances().Reaction.Value)
			var err error
			if read, err = p.Status(ctx); err != nil {
				return err
			}
			readAt = time.Now()
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("An update whose restarted container cannot start", sc, func(get func() *fw.Outcome) {
		It("counts the container that exited terminally as taken effect: observedGeneration and UpdateApplied reach the update's generation while the pod runs", req(spec.UPD006), func() {
			out := get()
			tl := out.Timeline
			tol := s.f.Tolerances()
			exits := tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, "app"))
			Expect(len(exits)).To(BeNumerically(">=", 2), "app's old instance and its replacement end\n%s", tl)
			failed := exits[1]
			Expect(read).NotTo(BeNil(), "the status read after the failed start")
			Expect(read.Phase).To(Equal(v1alpha1.PodRunning), "the scenario needs the pod running (keep) when status is read\n%s", read)
			Expect(read.ObservedGeneration).To(BeEquivalentTo(2), "status read %v after app's replacement ended (%s, %s) shows observedGeneration %d; app has exited terminally, so generation 2 has taken effect\n%s",
				readAt.Sub(failed.Time).Round(time.Millisecond), failed.Runtime.Reason, failed.Runtime.Message, read.ObservedGeneration, tl)
			applied, ok := tl.First(fw.UpdateAppliedEv(2))
			Expect(ok).To(BeTrue(), "UpdateApplied generation 2\n%s", tl)
			Expect(applied.Runtime.Seq).To(BeNumerically(">", failed.Runtime.Seq), "UpdateApplied comes after app's replacement ended\n%s", tl)
			Expect(applied.Time.Sub(failed.Time)).To(BeNumerically("<=", tol.Reaction.Value), "app's replacement ended to UpdateApplied generation 2, within %s\n%s", tol.Reaction.Name, tl)
			stop, ok := tl.First(fw.RuntimeEv(runtimev1.EventStopRequested, ""))
			Expect(ok).To(BeTrue(), "the Drive's stop\n%s", tl)
			Expect(applied.Runtime.Seq).To(BeNumerically("<", stop.Runtime.Seq), "UpdateApplied comes while the pod runs, before the stop request\n%s", tl)
		})
	})
}

// registerUpdateThenStop: a stop request arrives while an update replaces an instance that
// ignores its stop signal. The stop sequence takes over: its grace budget is the request's 15 s,
// not what is left of the update's 3 s (STOP-003), and it sends the stop signal once, with no
// other stop signal from the update after it began (STOP-007).
func (s *suite) registerUpdateThenStop() {
	const grace, stopGrace = 3, 15 // seconds: the pod's terminationGracePeriodSeconds, the stop request's
	pod := func(gen string) *fw.PodBuilder {
		return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(grace).
			Main("app", fw.Loop().On("SIGTERM", "ignore"), fw.WithEnv(updMark, gen))
	}
	sc := &fw.Scenario{
		Short: "update-then-stop", Profile: spec.ProfileUpdate, Pod: pod("1"),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "app running", p.PodTimeout(), fw.AllStarted("app")); err != nil {
				return err
			}
			if err := p.UpdateAccepted(ctx, pod("2")); err != nil {
				return err
			}
			// The update's stop signal reached the old instance, which ignores it: the update
			// would SIGKILL it 3 s after sending it. The stop request comes now.
			if _, err := p.WaitFor(ctx, "app to receive the update's SIGTERM", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("app", "SIGTERM"))
				return ok
			}); err != nil {
				return err
			}
			return p.Stop(ctx, i64(stopGrace), false)
		},
	}
	s.ordered("A stop request during an update's replacement", sc, func(get func() *fw.Outcome) {
		It("gets the stop request's grace budget, not what is left of the update's, and one stop signal", req(spec.STOP003RequestGrace, spec.STOP003FromBegin, spec.STOP007), func() {
			out := get()
			tl := out.Timeline
			tol := s.f.Tolerances()
			updSig, ok := tl.First(runtimeSignal("app", "SIGTERM"))
			Expect(ok).To(BeTrue(), "the update's SIGTERM to app\n%s", tl)
			begun, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
			Expect(ok).To(BeTrue(), "the stop sequence\n%s", tl)
			Expect(begun.Time.Before(updSig.Time.Add(grace*time.Second))).To(BeTrue(), "the scenario needs the stop within the update's %d s grace period\n%s", grace, tl)
			from, to := fw.RuntimeEv(runtimev1.EventPodTerminating, ""), runtimeSignal("app", "SIGKILL")
			Expect(tl.AtLeast("stop sequence to app's SIGKILL (the stop request's grace is 15 s, the update's 3 s)", from, to, stopGrace*time.Second, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("stop sequence to app's SIGKILL", from, to, stopGrace*time.Second, tol.Reaction)).To(Succeed())
			var stopSignals []fw.Entry
			for _, e := range tl.All(runtimeSignal("app", "SIGTERM")) {
				if !e.Time.Before(begun.Time) {
					stopSignals = append(stopSignals, e)
				}
			}
			Expect(stopSignals).To(HaveLen(1), "app's SIGTERMs once the stop sequence began: the stop sequence's one, none from the update\n%s", tl)
			Expect(out.Final.Terminated("app")).NotTo(BeNil(), "%s", out.Final)
		})
	})
}
