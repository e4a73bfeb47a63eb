package suites

import (
	"context"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

func (s *suite) registerIdentity() {
	// No restartPolicy, exitPolicy or stopSignal: the defaults (Always, All, SIGTERM) apply.
	defaults := &fw.Scenario{
		Short: "defaults",
		Pod: fastBackoff(fw.NewPod()).
			Main("a", fw.ExitAfter(0, ms(200)).Codes("0", "loop").Announce("a.{instance}.started")).
			Main("b", fw.Loop()),
		// A runtime with another default never restarts a: stop the pod after a bounded wait (not
		// the pod timeout), so that the MAN-011 spec, not the scenario, reports that.
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "a's second instance", p.PodTimeout()/4, func(tl *fw.Timeline) bool { return len(tl.Instances("a")) >= 2 }); err != nil && ctx.Err() != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Defaults", defaults, func(get func() *fw.Outcome) {
		It("gives unset fields their defaults: restartPolicy Always, stopSignal SIGTERM", req(spec.MAN011), func() {
			tl := get().Timeline
			Expect(tl.Restarted("a", 1)).To(Succeed(), "restartPolicy Always restarts a container that exited 0")
			Expect(tl.Happened("b receives SIGTERM", probeSignal("b", "SIGTERM"))).To(Succeed())
			Expect(countMatches(tl, fw.RuntimeEv(runtimev1.EventPolicyFired, ""))).To(BeZero(), "exitPolicy All never fires while a restarts under Always\n%s", tl)
		})
	})

	sc := &fw.Scenario{
		Short: "identity",
		Pod:   fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.ExitAfter(0, ms(200))),
	}
	s.ordered("Pod identity", sc, func(get func() *fw.Outcome) {
		It("gives the pod an RFC 9562 UUID, the one `run` printed", req(spec.ID004), func() {
			out := get()
			Expect(out.Final.UID).To(MatchRegexp(uuidPattern.String()), "status.uid")
			Expect(out.Final.UID).To(Equal(out.Pod.UID), "status.uid equals the uid `run --detach` printed")
		})
		It("never gives one pod's UID to another pod", req(spec.ID006), func(ctx SpecContext) {
			out := get()
			other, err := s.f.Start(ctx, "identity-2", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Exit(0)))
			DeferCleanup(func(ctx SpecContext) { Expect(other.Cleanup(ctx)).To(Succeed()) })
			Expect(err).NotTo(HaveOccurred())
			Expect(other.UID).NotTo(Equal(out.Pod.UID))
			for _, p := range s.f.Pods() {
				if p.Name != out.Pod.Name && p.UID != "" {
					Expect(p.UID).NotTo(Equal(out.Pod.UID), "UID of %s", p.Name)
				}
			}
		})
		It("refuses a second pod with the name of an existing pod", req(spec.ID007), func(ctx SpecContext) {
			out := get()
			res, err := s.f.RT.Exec(ctx, "run", "--detach", "--name", out.Pod.Name, out.Pod.Manifest)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.ExitCode).To(Equal(runtimev1.ExitConflict), "exit status for a name in use\n%s", res)
			st, err := out.Pod.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.UID).To(Equal(out.Pod.UID), "the existing pod is untouched")
		})
		It("creates the pod at generation 1 (observedGeneration 1 without updates)", req(spec.ID008), func() {
			Expect(get().Final.ObservedGeneration).To(BeEquivalentTo(1), "%s", get().Final)
		})
		It("sets startedAt when the first container starts and finishedAt when the pod is terminal", req(spec.DL001, spec.EXIT011WhenTerminal), func() {
			st := get().Final
			Expect(st.StartedAt).NotTo(BeNil(), "status.startedAt")
			Expect(st.FinishedAt).NotTo(BeNil(), "status.finishedAt")
			Expect(st.FinishedAt.Before(*st.StartedAt)).To(BeFalse(), "finishedAt not before startedAt")
		})
		It("accepts a stop request for a terminal pod without changing it", req(spec.STOP013), func(ctx SpecContext) {
			out := get()
			before, err := out.Pod.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(out.Pod.Stop(ctx, nil, false)).To(Succeed(), "stop of a terminal pod succeeds")
			Expect(out.Pod.Stop(ctx, nil, true)).To(Succeed(), "forced stop of a terminal pod succeeds")
			after, err := out.Pod.Status(ctx)
			Expect(err).NotTo(HaveOccurred())
			b1, _ := json.Marshal(before.PodStatus)
			b2, _ := json.Marshal(after.PodStatus)
			Expect(string(b2)).To(Equal(string(b1)), "status after the stop requests")
		})
	})
}
