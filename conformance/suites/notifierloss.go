package suites

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

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
	handlerEnd := func(evs []probe.Event) bool {
		for _, ev := range evs {
			if !ev.Fallback && ev.Container == "app" && ev.Role == probe.RoleNotifier && ev.Handler == "hold" && ev.Type == probe.TypeHandlerEnd {
				return true
			}
		}
		return false
	}
	sc := &fw.Scenario{
		Short:   "ntf-lost",
		Profile: spec.ProfileNotifier,
		Needs:   []string{fw.ProfileRecovery},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).
			Main("app", fw.Loop(), fw.NotifierExec("hold", fw.HookHandler(3*time.Second, 0)), fw.NotifierTimeout("hold", ntfTimeout)),
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
			if _, err := crashThenAdopt(ctx, p, func(time.Time) time.Time { return time.Now() }, func() error {
				if err := p.WaitForProbe(ctx, "the hold handler's end", p.PodTimeout(), handlerEnd); err != nil {
					return err
				}
				// The report comes just before the handler exits: let it be gone before any verb.
				return sleepCtx(ctx, time.Second)
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
		It("is recorded Failed with reason ExitStatusLost, not run again", req("NTF-012"), func() {
			out := get()
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
