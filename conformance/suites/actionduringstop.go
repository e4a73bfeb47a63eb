package suites

import (
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// actionHoldMax bounds how long the harness holds a notifier action's start while it watches for
// PodTerminating: a runtime may bound its own wait for an exec that hangs before its process
// begins (the reference waits at most 10 s from its decision, docs/runtime.md), and the hold
// must end well before such a bound, or it would judge that bound instead of the order.
const actionHoldMax = 5 * time.Second

// registerActionDuringStop declares the spec of MAIN-005's clause for notifier actions: a stop
// requested while an action's start is under way is recorded (PodTerminating) only after the
// action's process has begun, or the action never begins. The container's workingDir is a
// directory on the harness's lookup gate (fw.MountSubLookupGate: the volume mounts freely, the
// lookups of its "sub" are held while the gate is armed), and an exec action runs in the
// container's working directory: its process changes into it before it runs its command, so
// its start waits at the gate, deterministically, after the runtime decided to start it and
// before its process begins (runc's `exec` writes its --pid-file only after that change of
// directory). The harness requests a graceful stop (the workload ignores SIGTERM, so the
// container keeps running and the held exec can still begin), watches for PodTerminating while
// it holds the action, then lets it go. A runtime that does not wait for the action's start
// (the mutant stop_skips_action_start) records PodTerminating while the action is held, and the
// action's process begins after it; a runtime that waits records PodTerminating only after the
// gate opened, and one that abandons the held action never starts its process: both pass. The
// harness mounts the FUSE file system itself, so it must run as root.
func (s *suite) registerActionDuringStop() {
	const short = "action-during-stop"
	Describe("A stop requested while a notifier action's start is under way", profileLabel(spec.ProfileNotifier), func() {
		It("is recorded only after the action's process began, or the action never begins", req(spec.MAIN005NotifierActions), func(ctx SpecContext) {
			s.requireProfile(spec.ProfileNotifier)
			requireRoot("mount the FUSE directory that holds the action's start", spec.MAIN005NotifierActions+" is")
			gate, err := fw.MountSubLookupGate(os.TempDir())
			if err != nil {
				Skip(fmt.Sprintf("not checkable: %v; %s is untested here", err, spec.MAIN005NotifierActions))
			}
			DeferCleanup(func() { Expect(gate.Close()).To(Succeed()) })
			p, err := s.f.Start(ctx, short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(60).HostPath("gated", gate.Dir).
				Main("app", fw.Loop().On("TERM", "ignore"), fw.WithMount("gated", "/gated", false), fw.WithWorkingDir("/gated/sub"),
					fw.NotifierExec("mark", fw.HookHandler(0, 0)), fw.NotifierTimeout("mark", ntfTimeout)))
			DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
			DeferCleanup(gate.Open) // first of the clean-ups: nothing stays held
			Expect(err).NotTo(HaveOccurred())
			Expect(p.WaitContainersStarted(ctx, "app")).To(Succeed())

			gate.Arm()
			seen := newNtfSeen()
			Expect(seen.notifyPod(ctx, s.f, "mark", p, "mark")).To(Succeed())
			select {
			case <-gate.Blocked():
			case <-time.After(p.PodTimeout()):
				gate.Open()
				tl, _ := p.Timeline(ctx)
				Skip(fmt.Sprintf("not checkable: the runtime's exec action did not enter the container's working directory %s within %s (an action need not run there); %s is untested here\n%s",
					"/gated/sub", p.PodTimeout(), spec.MAIN005NotifierActions, tl))
			}
			stopped := make(chan error, 1)
			go func() { stopped <- p.Stop(ctx, nil, false) }()
			hold := min(2*s.f.Tolerances().Reaction.Value, actionHoldMax)
			_, err = p.WaitFor(ctx, "PodTerminating", hold, func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodTerminating, ""))
				return ok
			})
			recordedWhileHeld := err == nil
			gate.Open()
			Expect(<-stopped).To(Succeed(), "stop")
			Expect(seen.final(ctx, s.f, "mark")).To(Succeed())
			// The handler reports its start before it runs: a report sent before the delivery
			// ended may still be on its way to the harness.
			began := p.WaitForProbe(ctx, "the mark handler's start", s.f.Tolerances().Reaction.Value, func(evs []probe.Event) bool {
				for _, ev := range evs {
					if ev.Container == "app" && ev.Role == probe.RoleNotifier && ev.Handler == "mark" && ev.Type == probe.TypeHandlerStart {
						return true
					}
				}
				return false
			}) == nil
			Expect(p.Stop(ctx, nil, true)).To(Succeed(), "force the stop: the workload ignores SIGTERM")
			_, err = p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			tl, err := p.Timeline(ctx)
			Expect(err).NotTo(HaveOccurred())
			AddReportEntry("action-during-stop", fmt.Sprintf("PodTerminating recorded while the action's start was held (%s): %t; the action's process began: %t; delivery %s",
				hold, recordedWhileHeld, began, seen.view("mark")))
			Expect(recordedWhileHeld && began).To(BeFalse(),
				"the runtime recorded PodTerminating while the notifier action's start was held at the gate, before its process began, and the process began after it: a stop must wait for a start under way, or the action must not begin\n%s\n%s",
				seen.view("mark"), tl)
		})
	})
}
