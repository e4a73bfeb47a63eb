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

// registerNotifierLoss: a delivery runs when the pod's supervisor is lost (`crash`, profile
// recovery), and its handler ends while nothing supervises the pod. The first verb afterwards
// adopts the pod; nobody saw how the handler ended.
func (s *suite) registerNotifierLoss() {
	seen := newNtfSeen()
	handlerReported := func(typ string) func(evs []probe.Event) bool {
		return func(evs []probe.Event) bool {
			for _, ev := range evs {
				if !ev.Fallback && ev.Container == "app" && ev.Role == probe.RoleNotifier && ev.Handler == "hold" && ev.Type == typ {
					return true
				}
			}
			return false
		}
	}
	sc := &fw.Scenario{
		Short:   "ntf-lost",
		Profile: spec.ProfileNotifier,
		Needs:   []runtimev1.Profile{runtimev1.ProfileRecovery},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).
			Main("app", fw.Loop(), fw.NotifierExec("hold", fw.HookHandler(3*time.Second, 0).HoldsLock("hold.lock")), fw.NotifierTimeout("hold", ntfTimeout)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := p.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			if err := seen.notifyPod(ctx, s.f, "lost", p, "hold"); err != nil {
				return err
			}
			running := func(v *fw.NotificationView) bool {
				d := v.Delivery(p.Name, "app")
				return d != nil && d.Phase == v1alpha1.NotificationRunning
			}
			if err := seen.await(ctx, s.f, "lost", "the delivery Running", running); err != nil {
				return err
			}
			// The handler holds a flock on hold.lock from before its start report until its
			// process exits. Where the runtime's file locks do not reach the host (a sandbox
			// kernel's own), the harness cannot see the exit and falls back to a second after
			// the end report.
			if err := p.WaitForProbe(ctx, "the hold handler's start", p.PodTimeout(), handlerReported(probe.TypeHandlerStart)); err != nil {
				return err
			}
			held, err := p.Locked("hold.lock")
			if err != nil {
				return err
			}
			p.Note("handler-lock-visible", boolString(held))
			if _, err := crashThenAdopt(ctx, p, func(time.Time) time.Time { return time.Now() }, func() error {
				if err := p.WaitForProbe(ctx, "the hold handler's end", p.PodTimeout(), handlerReported(probe.TypeHandlerEnd)); err != nil {
					return err
				}
				// The report comes just before the handler exits: it must be gone before any
				// verb, or an adopting supervisor would still see it run and observe its end.
				if !held {
					return sleepCtx(ctx, time.Second)
				}
				return p.Gone(ctx, "hold.lock", p.PodTimeout())
			}); err != nil {
				return err
			}
			if err := seen.final(ctx, s.f, "lost"); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A delivery running when the supervisor is lost", sc, func(get func() *fw.Outcome) {
		It("is recorded Failed with reason ExitStatusLost, not run again", req(spec.NTF012), func() {
			out := get()
			if out.Pod.Notes()["handler-lock-visible"] != "true" {
				AddReportEntry("harness", "the handler's flock was not visible from the host: the harness waited a second after its end report instead of for its exit")
			}
			v := seen.view("lost")
			d := v.Delivery(out.Pod.Name, "app")
			Expect(d).NotTo(BeNil(), "%s", v)
			Expect(d.Phase).To(Equal(v1alpha1.NotificationFailed), "%s\n%s", v, out.Timeline)
			Expect(d.Reason).To(Equal("ExitStatusLost"), "nobody saw the handler's end\n%s\n%s", v, out.Timeline)
			Expect(d.ExitCode).To(BeNil(), "nobody saw the handler's exit code\n%s", v)
			Expect(handlerStarts(out.Timeline, "app", "hold")).To(Equal(1), "the delivery ran once, not again after adoption\n%s", out.Timeline)
		})
	})
}
