package suites

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// end is the expected end of a container's last instance.
type end struct {
	exit   *int32 // exitCode, nil when none
	signal string // signal name, "" when none
	reason string
}

func exitWith(code int32, reason string) end { return end{exit: &code, reason: reason} }
func killedBy(sig string, reason string) end { return end{signal: sig, reason: reason} }
func (e end) String() string {
	if e.exit != nil {
		return fmt.Sprintf("exit %d (%s)", *e.exit, e.reason)
	}
	return fmt.Sprintf("%s (%s)", e.signal, e.reason)
}

// exitRow is one pod of the exit-policy matrix: two main containers a and b.
type exitRow struct {
	key     string
	policy  v1alpha1.ExitPolicy
	restart v1alpha1.RestartPolicy
	a, b    fw.Workload
	aOpts   []fw.ContainerOpt
	bOpts   []fw.ContainerOpt

	phase     v1alpha1.PodPhase
	exitCode  int32
	decidedBy string
	reason    string // status.reason: the termination reason
	aEnd      end
	bEnd      end
	aRestarts int32 // restartCount of a
}

// exitRows is the matrix: exit policies × restart policies × exit codes × signals. Sleeps keep
// the order of a's and b's exits unambiguous; b either exits by itself later or loops until the
// policy stops it.
func exitRows() []exitRow {
	never, onFailure := v1alpha1.RestartPolicyNever, v1alpha1.RestartPolicyOnFailure
	all, anyP, anyF := v1alpha1.ExitPolicyAll, v1alpha1.ExitPolicyAny, v1alpha1.ExitPolicyAnyFailure
	ok, stopped := "Completed", "StoppedByPolicy"
	return []exitRow{
		{key: "all-0-0", policy: all, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.ExitAfter(0, ms(900)),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, ok)},
		{key: "all-3-0", policy: all, restart: never, a: fw.ExitAfter(3, ms(300)), b: fw.ExitAfter(0, ms(900)),
			phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "a", reason: "Failed", aEnd: exitWith(3, "Error"), bEnd: exitWith(0, ok)},
		{key: "all-3-4", policy: all, restart: never, a: fw.ExitAfter(3, ms(300)), b: fw.ExitAfter(4, ms(900)),
			phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "a", reason: "Failed", aEnd: exitWith(3, "Error"), bEnd: exitWith(4, "Error")},
		{key: "all-segv", policy: all, restart: never, a: fw.Loop().CrashAfter(ms(300)), b: fw.ExitAfter(0, ms(900)),
			phase: v1alpha1.PodFailed, exitCode: 128 + 11, decidedBy: "a", reason: "Failed", aEnd: killedBy("SIGSEGV", "Signaled"), bEnd: exitWith(0, ok)},
		{key: "any-0", policy: anyP, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.Loop(),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "a", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, stopped)},
		{key: "any-3", policy: anyP, restart: never, a: fw.ExitAfter(3, ms(300)), b: fw.Loop(),
			phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "a", reason: "Failed", aEnd: exitWith(3, "Error"), bEnd: exitWith(0, stopped)},
		{key: "any-b143", policy: anyP, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.Loop().On("SIGTERM", "exit:0s:143"),
			phase: v1alpha1.PodFailed, exitCode: 143, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(143, stopped)},
		{key: "any-bkill", policy: anyP, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.Loop().On("SIGTERM", "ignore"),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "a", reason: "Completed", aEnd: exitWith(0, ok), bEnd: killedBy("SIGKILL", stopped)},
		{key: "any-usr1", policy: anyP, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.Loop().On("SIGUSR1", "exit"), bOpts: []fw.ContainerOpt{fw.WithStopSignal("SIGUSR1")},
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "a", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, stopped)},
		{key: "anyf-0-0", policy: anyF, restart: never, a: fw.ExitAfter(0, ms(300)), b: fw.ExitAfter(0, ms(900)),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, ok)},
		{key: "anyf-3", policy: anyF, restart: never, a: fw.ExitAfter(3, ms(300)), b: fw.Loop(),
			phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "a", reason: "Failed", aEnd: exitWith(3, "Error"), bEnd: exitWith(0, stopped)},
		{key: "anyf-segv", policy: anyF, restart: never, a: fw.Loop().CrashAfter(ms(300)), b: fw.Loop(),
			phase: v1alpha1.PodFailed, exitCode: 128 + 11, decidedBy: "a", reason: "Failed", aEnd: killedBy("SIGSEGV", "Signaled"), bEnd: exitWith(0, stopped)},
		{key: "onf-all", policy: all, restart: onFailure, a: fw.ExitAfter(0, ms(300)).Codes("1", "0").Announce("a.{instance}.started"), b: fw.ExitAfter(0, ms(1000)).WaitFor("a.2.started"),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, ok), aRestarts: 1},
		{key: "onf-any", policy: anyP, restart: onFailure, a: fw.ExitAfter(0, ms(300)).Codes("3", "0"), b: fw.Loop(),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "a", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, stopped), aRestarts: 1},
		{key: "onf-success", policy: all, restart: onFailure, a: fw.ExitAfter(0, ms(300)), b: fw.ExitAfter(0, ms(900)),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, ok), bEnd: exitWith(0, ok)},
		{key: "own-never", policy: anyP, restart: onFailure, a: fw.ExitAfter(3, ms(300)), aOpts: []fw.ContainerOpt{fw.WithRestartPolicy(never)}, b: fw.Loop(),
			phase: v1alpha1.PodFailed, exitCode: 3, decidedBy: "a", reason: "Failed", aEnd: exitWith(3, "Error"), bEnd: exitWith(0, stopped)},
		{key: "own-always", policy: anyP, restart: never, a: fw.ExitAfter(0, ms(200)).Codes("0", "loop").Announce("a.{instance}.started"), aOpts: []fw.ContainerOpt{fw.WithRestartPolicy(v1alpha1.RestartPolicyAlways)}, b: fw.ExitAfter(0, ms(1000)).WaitFor("a.2.started"),
			phase: v1alpha1.PodSucceeded, exitCode: 0, decidedBy: "b", reason: "Completed", aEnd: exitWith(0, stopped), bEnd: exitWith(0, ok), aRestarts: 1},
	}
}

func (r exitRow) String() string {
	return fmt.Sprintf("exitPolicy %s, restartPolicy %s → %s %d decided by %s", r.policy, r.restart, r.phase, r.exitCode, r.decidedBy)
}

func (s *suite) registerExitMatrix() {
	rows := exitRows()
	scen := map[string]*fw.Scenario{}
	for _, r := range rows {
		// Both delays start only once both containers run (a rendezvous), so a's exit comes while
		// b runs and, when b exits by itself, before b's exit, however slowly they were started.
		b := fastBackoff(fw.NewPod().ExitPolicy(r.policy).RestartPolicy(r.restart).Grace(3)).
			Main("a", r.a.Announce("a.started").WaitFor("b.started"), r.aOpts...).
			Main("b", r.b.Announce("b.started").WaitFor("a.started"), r.bOpts...)
		scen[r.key] = s.scenarios.Add(&fw.Scenario{Short: "exit-" + r.key, Pod: b})
	}
	entries := func(keep func(exitRow) bool) []TableEntry {
		return rowEntries(rows, func(r exitRow) string { return r.key + ": " + r.String() }, keep)
	}
	stoppedB := func(r exitRow) bool { return r.bEnd.reason == "StoppedByPolicy" }
	Describe("Exit policies × restart policies × exit codes × signals", profileLabel("core"), func() {
		DescribeTable("the pod result: phase, exitCode and decidedBy",
			req(spec.EXIT008, spec.EXIT012NonZeroExitCode, spec.EXIT012Signal, spec.EXIT013, spec.EXIT014NoFailure,
				spec.EXIT015FirstFailure, spec.EXIT016Policy, spec.EXIT017ExitCode, spec.EXIT017Signal),
			func(ctx SpecContext, r exitRow) {
				st := s.await(ctx, scen[r.key]).Final
				Expect(st.Phase).To(Equal(r.phase), "status.phase\n%s", st)
				Expect(st.ExitCode).To(HaveValue(Equal(r.exitCode)), "status.exitCode\n%s", st)
				Expect(st.DecidedBy).To(Equal(r.decidedBy), "status.decidedBy\n%s", st)
			}, entries(nil))
		DescribeTable("the policy fires once, at the right exit, with the right termination reason",
			req(spec.EXIT003, spec.EXIT004, spec.EXIT005FirstFailure, spec.EXIT005AllSucceeded, spec.EXIT006Failed, spec.EXIT006Completed,
				spec.EXIT007AtMostOnce, spec.EXIT020),
			func(ctx SpecContext, r exitRow) {
				out := s.await(ctx, scen[r.key])
				Expect(out.Final.Reason).To(Equal(r.reason), "status.reason\n%s", out.Final)
				fired := out.Timeline.All(fw.RuntimeEv(runtimev1.EventPolicyFired, ""))
				Expect(fired).To(HaveLen(1), "exactly one PolicyFired\n%s", out.Timeline)
				if r.bEnd.reason == "StoppedByPolicy" {
					// b was stopped: the policy fired before b received anything.
					Expect(out.Timeline.Before("the policy fires before b is signalled", fw.RuntimeEv(runtimev1.EventPolicyFired, ""), fw.RuntimeEv(runtimev1.EventSignalSent, "b"))).To(Succeed())
				} else {
					// b exited by itself: in every such row the policy holds only from b's terminal
					// exit on (All: the last exit; AnyFailure: no failure before it; Any: a's exits
					// were not terminal), so it fires after that exit in event order.
					exited, ok := out.Timeline.Last(fw.RuntimeEv(runtimev1.EventContainerExited, "b"))
					Expect(ok).To(BeTrue(), "b's ContainerExited\n%s", out.Timeline)
					Expect(fired[0].Runtime.Seq).To(BeNumerically(">", exited.Runtime.Seq),
						"the policy fired (seq %d) before b's terminal exit (seq %d), while it did not hold yet\n%s", fired[0].Runtime.Seq, exited.Runtime.Seq, out.Timeline)
				}
			}, entries(nil))
		DescribeTable("each container's exit status: exitCode iff it exited, signal iff a signal killed it, and the reason",
			req(spec.STAT001SetWhenExited, spec.STAT001OnlyIfExited, spec.STAT002SetWhenKilled, spec.STAT002NameAndNumber,
				spec.STAT002OnlyIfKilled, spec.STAT003, spec.STAT006),
			func(ctx SpecContext, r exitRow) {
				st := s.await(ctx, scen[r.key]).Final
				for name, want := range map[string]end{"a": r.aEnd, "b": r.bEnd} {
					t := st.Terminated(name)
					Expect(t).NotTo(BeNil(), "%s terminated\n%s", name, st)
					if want.exit != nil {
						Expect(t.ExitCode).To(HaveValue(Equal(*want.exit)), "%s exitCode\n%s", name, st)
						Expect(t.Signal).To(BeNil(), "%s signal must be unset when it exited\n%s", name, st)
					} else {
						Expect(t.ExitCode).To(BeNil(), "%s exitCode must be unset when a signal killed it\n%s", name, st)
						Expect(t.Signal).To(Equal(signal(want.signal)), "%s signal\n%s", name, st)
					}
					Expect(t.Reason).To(Equal(want.reason), "%s reason\n%s", name, st)
				}
			}, entries(nil))
		DescribeTable("restarts follow the effective restart policy and exits that will be restarted do not count",
			req(spec.RST002, spec.RST003Always, spec.RST003OnFailure, spec.RST003ExactlyWhen, spec.RST006, spec.EXIT002),
			func(ctx SpecContext, r exitRow) {
				out := s.await(ctx, scen[r.key])
				c := out.Final.Container("a")
				Expect(c).NotTo(BeNil())
				n := len(out.Timeline.Instances("a"))
				Expect(c.RestartCount).To(Equal(r.aRestarts), "a restartCount\n%s", out.Final)
				Expect(n).To(Equal(int(c.RestartCount)+1), "the workload's instances match restartCount + 1\n%s", out.Timeline)
			}, entries(nil))
		DescribeTable("a container stopped by the policy receives its own stop signal",
			req(spec.STOP007, spec.EXIT013),
			func(ctx SpecContext, r exitRow) {
				out := s.await(ctx, scen[r.key])
				sig := "SIGTERM"
				if r.key == "any-usr1" {
					sig = "SIGUSR1"
				}
				Expect(countMatches(out.Timeline, probeSignal("b", sig))).To(Equal(1), "b receives %s exactly once\n%s", sig, out.Timeline)
				Expect(out.Timeline.Happened("b's workload reports the signal", fw.ProbeEvent("b", probe.TypeSignal))).To(Succeed())
			}, entries(stoppedB))
	})
}
