package suites

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

func (s *suite) registerSidecars() {
	// Two sidecars under pod restart policy Never: s2 exits 0 once and must be restarted anyway;
	// s1 exits 1 on its stop signal, which must not count for the pod result.
	sc := &fw.Scenario{
		Short: "sidecars",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever)).
			Sidecar("s1", fw.Loop().On("SIGTERM", "exit:0s:1")).
			Sidecar("s2", fw.ExitAfter(0, ms(200)).Codes("0", "loop")).
			Main("app", fw.ExitAfter(0, ms(4000))),
	}
	s.ordered("Sidecars", sc, func(get func() *fw.Outcome) {
		It("restarts a sidecar after every exit, whatever the pod's restart policy", req(spec.SIDE001), func() {
			Expect(get().Timeline.Restarted("s2", 1)).To(Succeed())
		})
		It("does not count a sidecar's exit for the exit policy or the pod result", req(spec.SIDE002), func() {
			st := get().Final
			Expect(st.Phase).To(Equal(v1alpha1.PodSucceeded), "s1 exits 1 on its stop signal, yet the pod succeeds\n%s", st)
			Expect(st.DecidedBy).NotTo(Or(Equal("s1"), Equal("s2")))
			Expect(st.ExitCode).To(HaveValue(BeEquivalentTo(0)))
		})
		It("stops sidecars in reverse order, each after the later one has exited", req(spec.HB015), func() {
			tl := get().Timeline
			Expect(endedBefore(tl, "s2", "s1's stop signal", fw.ProbeEvent("s1", probe.TypeSignal))).To(Succeed())
		})
		It("stops the last sidecar only after every main container has exited", req(spec.HB014), func() {
			tl := get().Timeline
			Expect(endedBefore(tl, "app", "s2's stop signal", fw.ProbeEvent("s2", probe.TypeSignal))).To(Succeed())
		})
		It("stops each sidecar with its stop signal", req(spec.STOP009StopSignal), func() {
			tl := get().Timeline
			Expect(tl.Happened("SIGTERM received by s1", probeSignal("s1", "SIGTERM"))).To(Succeed())
			Expect(tl.Happened("SIGTERM received by s2", probeSignal("s2", "SIGTERM"))).To(Succeed())
		})
	})

	// Sidecars that exit while the pod stops, before their own step of the stop sequence: b while
	// the main container db lingers after its stop signal (step 2), a while c, stopped first in
	// step 4, runs its preStop hook. Both must be restarted; each exit is triggered by the
	// harness on an event of the step it must fall into, not by a timer.
	inStop := &fw.Scenario{
		Short: "sidecars-in-stop",
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever)).
			Sidecar("a", fw.Loop().Codes("0", "loop").WaitFor("a-go")).
			Sidecar("b", fw.Loop().Codes("0", "loop").WaitFor("b-go")).
			Sidecar("c", fw.Loop(), fw.PreStop(fw.HookHandler(3*time.Second, 0))).
			Main("db", fw.Loop().On("SIGTERM", "exit:3s:0")),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "every container to start", p.PodTimeout(), fw.AllStarted("a", "b", "c", "db")); err != nil {
				return err
			}
			if err := p.Stop(ctx, nil, false); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "db's stop signal", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(probeSignal("db", "SIGTERM"))
				return ok
			}); err != nil {
				return err
			}
			if err := p.Touch("b-go"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "c's preStop hook", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventHookStarted, "c"))
				return ok
			}); err != nil {
				return err
			}
			return p.Touch("a-go")
		},
	}
	s.ordered("Sidecars exiting during the stop sequence", inStop, func(get func() *fw.Outcome) {
		// restartedWithin checks that the first instance of sidecar ended after from and before
		// to (the window the scenario puts its exit in) and that a second instance started.
		restartedWithin := func(sidecar, fromWhat string, from fw.Matcher, toWhat string, to fw.Matcher) {
			tl := get().Timeline
			inst := tl.Instances(sidecar)
			Expect(inst).NotTo(BeEmpty(), "%s", tl)
			Expect(inst[0].End.IsZero()).To(BeFalse(), "%s's first instance has an end\n%s", sidecar, tl)
			f, ok := tl.First(from)
			Expect(ok).To(BeTrue(), "%s is on the timeline\n%s", fromWhat, tl)
			Expect(inst[0].End.After(f.Time)).To(BeTrue(), "%s's first instance ended after %s\n%s", sidecar, fromWhat, tl)
			if t, ok := tl.First(to); ok {
				Expect(inst[0].End.Before(t.Time)).To(BeTrue(), "%s's first instance ended before %s\n%s", sidecar, toWhat, tl)
			}
			Expect(len(inst)).To(BeNumerically(">=", 2), "%s exited after %s, before its own stop step, and was not restarted\n%s", sidecar, fromWhat, tl)
			Expect(inst[1].Start.After(inst[0].End)).To(BeTrue(), "%s's second instance started after its first ended\n%s", sidecar, tl)
		}
		It("restarts a sidecar that exits while the main containers stop", req(spec.SIDE001), func() {
			restartedWithin("b", "PodTerminating", fw.RuntimeEv(runtimev1.EventPodTerminating, ""),
				"db's exit", fw.RuntimeEv(runtimev1.EventContainerExited, "db"))
		})
		It("restarts a sidecar that exits while a later sidecar is stopped, before its own step", req(spec.SIDE001), func() {
			restartedWithin("a", "c's preStop hook", fw.RuntimeEv(runtimev1.EventHookStarted, "c"),
				"a's stop signal", probeSignal("a", "SIGTERM"))
		})
		It("stops each restarted sidecar once, at its own step, after the later sidecars exited", req(spec.HB015, spec.STOP009), func() {
			tl := get().Timeline
			Expect(endedBefore(tl, "c", "b's stop signal", probeSignal("b", "SIGTERM"))).To(Succeed())
			Expect(endedBefore(tl, "b", "a's stop signal", probeSignal("a", "SIGTERM"))).To(Succeed())
		})
	})
}
