package suites

import (
	"context"
	"fmt"
	"sort"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Notifier specs (profile notifier, docs/spec/notifiers.md). A scenario's Drive creates the
// Notifications while its pod runs, waits for their outcomes and keeps what it read in an
// ntfSeen; the specs judge the records and statuses (`notification status|results`) against
// what the probe saw from inside the containers: a notifier handler reports its start and end
// (and, with Report, its namespaces and environment), a workload reports every signal.

// ntfTimeout is the timeoutSeconds of exec notifiers that are not about the timeout: `runc
// exec` alone can take seconds on a loaded machine, and a short action must not turn into a
// HandlerTimeout there.
const ntfTimeout = 120

// ntfSeen is what a notifier scenario's Drive observed. Drive runs to its end before the
// scenario's specs read it.
type ntfSeen struct {
	// names maps a key of the scenario to the Notification's name.
	names map[string]string
	// views holds the last read of each Notification, by key.
	views map[string]*fw.NotificationView
	// pods are pods the Drive created besides the scenario's own, by key; timelines their
	// timelines, read before they were removed.
	pods      map[string]*fw.Pod
	timelines map[string]*fw.Timeline
	// notes are observations made while driving.
	notes map[string]string
	// when are moments the Drive recorded (host clock).
	when map[string]time.Time
}

func newNtfSeen() *ntfSeen {
	return &ntfSeen{names: map[string]string{}, views: map[string]*fw.NotificationView{}, pods: map[string]*fw.Pod{},
		timelines: map[string]*fw.Timeline{}, notes: map[string]string{}, when: map[string]time.Time{}}
}

// view returns the view of a key, failing the spec when the Drive did not get that far.
func (n *ntfSeen) view(key string) *fw.NotificationView {
	v := n.views[key]
	Expect(v).NotTo(BeNil(), "notification %q was not read by the scenario", key)
	return v
}

// notify creates a Notification (spec.pods or a selector) and remembers its name under key.
func (n *ntfSeen) notify(ctx context.Context, f *fw.Framework, key, short string, spec v1alpha1.NotificationSpec) error {
	obj, err := f.Notify(ctx, short, spec)
	if err != nil {
		return fmt.Errorf("notify %s: %w", key, err)
	}
	n.names[key] = obj.Metadata.Name
	return nil
}

// notifyPod runs `notify POD NOTIFIER` and remembers the Notification under key.
func (n *ntfSeen) notifyPod(ctx context.Context, f *fw.Framework, key string, p *fw.Pod, notifier string) error {
	obj, err := f.NotifyPod(ctx, p, notifier)
	if err != nil {
		return fmt.Errorf("notify %s: %w", key, err)
	}
	n.names[key] = obj.Metadata.Name
	return nil
}

// final waits until the Notification of key is final and keeps the view.
func (n *ntfSeen) final(ctx context.Context, f *fw.Framework, key string) error {
	return n.await(ctx, f, key, "a final phase", fw.NotificationFinal)
}

// await waits until the Notification of key satisfies cond, then reads it again until its status
// counts agree with its records (NOTIF-016), for at most the Reaction tolerance: the status and
// the records are two reads, and a runtime may update its summary a moment after a record. It
// keeps the last view under key; the specs judge it.
func (n *ntfSeen) await(ctx context.Context, f *fw.Framework, key, what string, cond func(*fw.NotificationView) bool) error {
	v, err := f.AwaitNotification(ctx, n.names[key], what, cond)
	if v != nil {
		n.views[key] = v
	}
	if err != nil {
		return err
	}
	both := func(v *fw.NotificationView) bool { return cond(v) && fw.CountsMatchRecords(v) }
	if v, _ := f.AwaitNotificationWithin(ctx, n.names[key], what+" and counts that agree with the records", f.Tolerances().Reaction, both); v != nil {
		n.views[key] = v
	}
	return nil
}

// handlerEv matches a notifier handler's start or end reported from inside a container.
func handlerEv(container, notifier, typ string) fw.Matcher {
	return func(e fw.Entry) bool {
		return fw.HandlerEvent(container, notifier, typ)(e) && e.Probe.Role == probe.RoleNotifier
	}
}

// handlerStarts counts the starts of a notifier's handler in a container.
func handlerStarts(tl *fw.Timeline, container, notifier string) int {
	return countMatches(tl, handlerEv(container, notifier, probe.TypeHandlerStart))
}

// notifierRun matches the runtime's NotifierStarted or NotifierFinished of one Notification in a
// container ("" matches any container).
func notifierRun(typ runtimev1.EventType, container, notification string) fw.Matcher {
	return func(e fw.Entry) bool {
		return fw.RuntimeEv(typ, container)(e) && e.Runtime.Notification == notification
	}
}

// recordPhaseRule is the phase NOTIF-013 gives a final pod record with these deliveries.
func recordPhaseRule(ds []v1alpha1.ContainerDelivery) v1alpha1.NotificationPhase {
	out := v1alpha1.NotificationSkipped
	for _, d := range ds {
		switch d.Phase {
		case v1alpha1.NotificationFailed:
			return v1alpha1.NotificationFailed
		case v1alpha1.NotificationSucceeded:
			out = v1alpha1.NotificationSucceeded
		}
	}
	return out
}

// expectCountsMatchRecords checks NOTIF-016 on one view.
func expectCountsMatchRecords(v *fw.NotificationView) {
	Expect(fw.CountsMatchRecords(v)).To(BeTrue(), "the status counts the pod records per phase, and targets is their number\n%s", v)
}

// expectOneRecordPerTarget checks NOTIF-018 on one view: `notification results` holds one
// record per target pod (pod name and UID unique), sorted by pod name, each for this
// Notification.
func expectOneRecordPerTarget(v *fw.NotificationView) {
	Expect(v.Records).To(HaveLen(int(v.Status.Targets)), "one record per target\n%s", v)
	seen := map[string]bool{}
	for _, r := range v.Records {
		key := r.Pod + "/" + r.PodUID
		Expect(seen).NotTo(HaveKey(key), "a second record for pod %s\n%s", key, v)
		seen[key] = true
		Expect(r.Notification).To(Equal(v.Name), "the record names its Notification\n%s", v)
	}
	Expect(sort.SliceIsSorted(v.Records, func(i, j int) bool { return v.Records[i].Pod < v.Records[j].Pod })).To(BeTrue(), "records sorted by pod name\n%s", v)
}

// expectNoDelivery checks that a container got no delivery: no handler of the notifier ran in
// it and the runtime recorded no NotifierStarted for it.
func expectNoDelivery(tl *fw.Timeline, container, notifier string) {
	Expect(handlerStarts(tl, container, notifier)).To(BeZero(), "no %s handler may run in %s\n%s", notifier, container, tl)
	Expect(tl.NeverHappened("a NotifierStarted in "+container, func(e fw.Entry) bool {
		return fw.RuntimeEv(runtimev1.EventNotifierStarted, container)(e) && e.Runtime.Notifier == notifier
	})).To(Succeed())
}

func (s *suite) registerNotifiers() {
	s.registerNotifierDelivery()
	s.registerNotifierInstanceEnds()
	s.registerNotifierOrder()
	s.registerNotifierDeletedWhileWaiting()
	s.registerNotifierEarlierDeleted()
	s.registerNotifierTerminating()
	s.registerNotificationParallelism()
	s.registerNotificationOrder()
	s.registerNotificationSelection()
	s.registerNotificationRelabel()
	s.registerNotifierLoss()
	s.registerNotifierTimeoutTree()
}

// registerNotifierDelivery: one pod with every kind of container and notifier; six
// Notifications to it, one per notifier (each notifier has a name of its own, so their
// deliveries do not wait for each other).
func (s *suite) registerNotifierDelivery() {
	const slowSleep, slowTimeout = 6 * time.Second, 2
	seen := newNtfSeen()
	keys := []string{"inspect", "hold", "fail", "missing", "slow", "hup", "absent"}
	inspect := fw.HookHandler(time.Second, 0)
	sc := &fw.Scenario{
		Short:   "ntf-deliver",
		Profile: spec.ProfileNotifier,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).
			// side's fail handler exits 0: the fail record holds a Succeeded and a Failed delivery.
			Sidecar("side", fw.Loop(), fw.NotifierExec("inspect", inspect), fw.NotifierTimeout("inspect", ntfTimeout),
				fw.NotifierExec("fail", fw.HookHandler(0, 0)), fw.NotifierTimeout("fail", ntfTimeout)).
			Main("app", fw.Loop().Report(), fw.WithEnv("NTF_MARK", "app-only"),
				fw.NotifierExec("inspect", inspect.Report()), fw.NotifierTimeout("inspect", ntfTimeout),
				// hold runs long enough for the harness to read its record while it runs, also
				// on a loaded machine.
				fw.NotifierExec("hold", fw.HookHandler(20*time.Second, 0)), fw.NotifierTimeout("hold", ntfTimeout),
				fw.NotifierExec("fail", fw.HookHandler(0, 7)), fw.NotifierTimeout("fail", ntfTimeout),
				fw.NotifierCommand("missing", "/no/such/notifier"), fw.NotifierTimeout("missing", ntfTimeout),
				fw.NotifierExec("slow", fw.HookHandler(slowSleep, 0)), fw.NotifierTimeout("slow", slowTimeout),
				fw.NotifierSignal("hup", "SIGHUP")).
			// late runs but is never Started (its startup probe never passes); done has exited.
			Main("late", fw.Loop(), fw.Startup(fw.CheckMarker("never"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1000}),
				fw.NotifierExec("inspect", fw.HookHandler(0, 0)), fw.NotifierTimeout("inspect", ntfTimeout)).
			Main("done", fw.Exit(0), fw.NotifierExec("inspect", fw.HookHandler(0, 0)), fw.NotifierTimeout("inspect", ntfTimeout)).
			Main("plain", fw.Loop(), fw.NotifierExec("other", fw.HookHandler(0, 0)), fw.NotifierTimeout("other", ntfTimeout)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := p.WaitContainersStarted(ctx, "side", "app", "plain"); err != nil {
				return err
			}
			// The runtime has recorded done's exit (the workload's own report comes first).
			if _, err := p.WaitFor(ctx, "done's exit recorded", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerExited, "done"))
				return ok
			}); err != nil {
				return err
			}
			st, err := p.Status(ctx)
			if err != nil {
				return err
			}
			seen.notes["app-containerID"] = st.Container("app").ContainerID
			for _, nf := range keys {
				if err := seen.notify(ctx, f, nf, "nd-"+nf, v1alpha1.NotificationSpec{Notifier: nf, Pods: []string{p.Name}}); err != nil {
					return err
				}
			}
			// NTF-011: once the action runs, its delivery is recorded Running with the instance.
			if _, err := p.WaitFor(ctx, "app's hold handler started", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return handlerStarts(tl, "app", "hold") > 0
			}); err != nil {
				return err
			}
			v, err := f.ReadNotification(ctx, seen.names["hold"])
			if err != nil {
				return err
			}
			seen.views["hold-running"] = v
			for _, key := range keys {
				if err := seen.final(ctx, f, key); err != nil {
					return err
				}
				seen.when[key+"-final"] = time.Now()
			}
			// A handler that survived its timeout would report its end slowSleep after its start,
			// which came before its delivery was recorded final.
			if wait := time.Until(seen.when["slow-final"].Add(slowSleep + f.Tolerances().Reaction.Value)); wait > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(wait):
				}
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Notifier delivery in a running pod", sc, func(get func() *fw.Outcome) {
		tl := func() *fw.Timeline { return get().Timeline }
		pod := func() string { return get().Pod.Name }
		It("runs only the action the container declares under spec.notifier", req(spec.NTF004), func() {
			t := tl()
			for key, name := range seen.names {
				for _, e := range t.All(fw.RuntimeEv(runtimev1.EventNotifierStarted, "")) {
					if e.Runtime.Notification == name {
						Expect(e.Runtime.Notifier).To(Equal(key), "Notification %s triggers notifier %s only\n%s", name, key, t)
					}
				}
			}
			for _, e := range t.All(func(e fw.Entry) bool { return e.Probe != nil && e.Probe.Role == probe.RoleNotifier }) {
				Expect(seen.names).To(HaveKey(e.Probe.Handler), "handler %s in %s ran, but no Notification names it\n%s", e.Probe.Handler, e.Probe.Container, t)
			}
			expectNoDelivery(t, "plain", "other")
			Expect(seen.view("inspect").Delivery(pod(), "plain")).To(BeNil(), "plain does not declare inspect\n%s", seen.view("inspect"))
		})
		It("runs an exec action inside the target instance: its namespaces, cgroup, root filesystem, user and environment", req(spec.NTF005), func() {
			var app, handler *probe.Report
			for _, e := range tl().All(fw.ProbeEvent("app", probe.TypeReport)) {
				switch e.Probe.Role {
				case probe.RoleWorkload:
					app = e.Probe.Report
				case probe.RoleNotifier:
					handler = e.Probe.Report
				}
			}
			Expect(app).NotTo(BeNil(), "app's own report\n%s", tl())
			Expect(handler).NotTo(BeNil(), "the inspect handler's report\n%s", tl())
			for _, ns := range []string{"mnt", "net", "ipc", "uts", "pid", "cgroup"} {
				Expect(handler.Namespaces[ns]).NotTo(BeEmpty(), "%s namespace", ns)
				Expect(handler.Namespaces[ns]).To(Equal(app.Namespaces[ns]), "%s namespace of the action and of app (the mount namespace holds the root filesystem)", ns)
			}
			Expect(handler.UID).To(Equal(app.UID), "user")
			Expect(handler.GID).To(Equal(app.GID), "group")
			Expect(handler.Cgroup).To(Equal(app.Cgroup), "cgroup")
			Expect(handler.Env).To(HaveKeyWithValue("NTF_MARK", "app-only"), "app's environment")
			Expect(handler.Env).To(HaveKeyWithValue("PODSPEC_PROBE_NAME", "app"), "app's environment")
			d := seen.view("inspect").Delivery(pod(), "app")
			Expect(d).NotTo(BeNil(), "%s", seen.view("inspect"))
			Expect(d.ContainerID).To(Equal(seen.notes["app-containerID"]), "the delivery names the instance it ran in")
		})
		It("sends a signal action to the main process of the instance and records it Succeeded", req(spec.NTF006), func() {
			t := tl()
			sig := t.All(probeSignal("app", "SIGHUP"))
			Expect(sig).To(HaveLen(1), "app's own process receives SIGHUP once\n%s", t)
			Expect(sig[0].Probe.Role).To(Equal(probe.RoleWorkload))
			Expect(sig[0].Probe.PID).To(Equal(1), "the main process is PID 1 of the container")
			for _, c := range []string{"side", "late", "plain"} {
				Expect(t.All(probeSignal(c, "SIGHUP"))).To(BeEmpty(), "%s declares no hup notifier\n%s", c, t)
			}
			d := seen.view("hup").Delivery(pod(), "app")
			Expect(d).NotTo(BeNil(), "%s", seen.view("hup"))
			Expect(d.Phase).To(Equal(v1alpha1.NotificationSucceeded), "%s", seen.view("hup"))
		})
		DescribeTable("records an exec delivery's outcome from the command's exit", req(spec.NTF007),
			func(key string, phase v1alpha1.NotificationPhase, reason string, code *int32) {
				v := seen.view(key)
				d := v.Delivery(pod(), "app")
				Expect(d).NotTo(BeNil(), "%s", v)
				Expect(d.Phase).To(Equal(phase), "%s", v)
				Expect(d.Reason).To(Equal(reason), "%s", v)
				if code != nil {
					Expect(d.ExitCode).To(HaveValue(Equal(*code)), "exitCode\n%s", v)
				}
			},
			Entry("exit 0: Succeeded", "inspect", v1alpha1.NotificationSucceeded, "", nil),
			Entry("exit 7: Failed, HandlerFailed, exitCode 7", "fail", v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, ptr32(7)),
			Entry("a command that cannot be started: Failed, HandlerFailed", "missing", v1alpha1.NotificationFailed, v1alpha1.ReasonHandlerFailed, nil),
		)
		It("kills an action that outlives timeoutSeconds, not before, and records HandlerTimeout", req(spec.NTF008), func() {
			v := seen.view("slow")
			d := v.Delivery(pod(), "app")
			Expect(d).NotTo(BeNil(), "%s", v)
			Expect(d.Phase).To(Equal(v1alpha1.NotificationFailed), "%s", v)
			Expect(d.Reason).To(Equal(v1alpha1.ReasonHandlerTimeout), "%s", v)
			Expect(d.StartedAt).NotTo(BeNil(), "%s", v)
			Expect(d.FinishedAt).NotTo(BeNil(), "%s", v)
			early := s.f.Tolerances().EarlyMargin
			Expect(d.FinishedAt.Sub(*d.StartedAt)).To(BeNumerically(">=", slowTimeout*time.Second-early.Value),
				"the action was given its %ds (%s %v)\n%s", slowTimeout, early.Name, early.Value, v)
			Expect(tl().NeverHappened("the end of the killed slow handler (it sleeps "+slowSleep.String()+")", handlerEv("app", "slow", probe.TypeHandlerEnd))).To(Succeed())
		})
		It("delivers only to main containers and sidecars that are running and Started", req(spec.NTF009), func() {
			t := tl()
			Expect(handlerStarts(t, "side", "inspect")).To(Equal(1), "%s", t)
			Expect(handlerStarts(t, "app", "inspect")).To(Equal(1), "%s", t)
			expectNoDelivery(t, "late", "inspect")
			expectNoDelivery(t, "done", "inspect")
		})
		It("delivers a Notification at most once to each container instance", req(spec.NTF010), func() {
			t := tl()
			for key, name := range seen.names {
				ids := map[string]int{}
				for _, e := range t.All(notifierRun(runtimev1.EventNotifierStarted, "", name)) {
					ids[e.Runtime.ContainerID]++
				}
				for id, n := range ids {
					Expect(n).To(Equal(1), "Notification %s (%s) started %d times in %s\n%s", name, key, n, id, t)
				}
			}
			for _, c := range []string{"side", "app"} {
				Expect(handlerStarts(t, c, "inspect")).To(Equal(1), "inspect ran once in %s\n%s", c, t)
			}
			Expect(handlerStarts(t, "app", "fail")).To(Equal(1), "%s", t)
			Expect(t.All(probeSignal("app", "SIGHUP"))).To(HaveLen(1), "%s", t)
		})
		It("persists a delivery as Running, with the containerID, before the action starts", req(spec.NTF011), func() {
			v := seen.view("hold-running")
			d := v.Delivery(pod(), "app")
			Expect(d).NotTo(BeNil(), "read while app's hold handler ran\n%s", v)
			Expect(d.Phase).To(Equal(v1alpha1.NotificationRunning), "read while app's hold handler ran\n%s", v)
			Expect(d.ContainerID).To(Equal(seen.notes["app-containerID"]), "read while app's hold handler ran\n%s", v)
		})
		It("delivers to every eligible container of the pod that declares the notifier", req(spec.NTF014), func() {
			v := seen.view("inspect")
			for _, c := range []string{"side", "app"} {
				d := v.Delivery(pod(), c)
				Expect(d).NotTo(BeNil(), "%s declares inspect\n%s", c, v)
				Expect(d.Phase).To(Equal(v1alpha1.NotificationSucceeded), "%s\n%s", c, v)
				Expect(handlerStarts(tl(), c, "inspect")).To(Equal(1), "%s", tl())
			}
		})
		It("skips a pod in which no main container or sidecar declares the notifier with NoMatchingContainers", req(spec.NOTIF010), func() {
			v := seen.view("absent")
			r := v.Record(pod())
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
			Expect(r.Reason).To(Equal(v1alpha1.ReasonNoMatchingContainers), "%s", v)
			Expect(r.Containers).To(BeEmpty(), "%s", v)
		})
		DescribeTable("skips a declaring container that is not eligible when the pod's turn comes with NotEligible", req(spec.NOTIF011),
			func(container string) {
				v := seen.view("inspect")
				d := v.Delivery(pod(), container)
				Expect(d).NotTo(BeNil(), "%s declares inspect\n%s", container, v)
				Expect(d.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
				Expect(d.Reason).To(Equal(v1alpha1.ReasonNotEligible), "%s", v)
				expectNoDelivery(tl(), container, "inspect")
			},
			Entry("running but not Started (startup probe pending)", "late"),
			Entry("exited", "done"),
		)
		DescribeTable("gives a final pod record the phase of its deliveries", req(spec.NOTIF013Failed, spec.NOTIF013Succeeded, spec.NOTIF013Skipped),
			func(key string, want v1alpha1.NotificationPhase, phases map[string]v1alpha1.NotificationPhase) {
				v := seen.view(key)
				r := v.Record(pod())
				Expect(r).NotTo(BeNil(), "%s", v)
				for c, ph := range phases {
					Expect(v.Delivery(pod(), c)).To(HaveField("Phase", ph), "the premise: %s's delivery is %s\n%s", c, ph, v)
				}
				Expect(r.Phase).To(Equal(want), "the record's phase\n%s", v)
				Expect(r.Phase).To(Equal(recordPhaseRule(r.Containers)), "%s", v)
			},
			Entry("Succeeded and Skipped deliveries: Succeeded", "inspect", v1alpha1.NotificationSucceeded, nil),
			Entry("a Failed and a Succeeded delivery: Failed", "fail", v1alpha1.NotificationFailed,
				map[string]v1alpha1.NotificationPhase{"side": v1alpha1.NotificationSucceeded, "app": v1alpha1.NotificationFailed}),
			Entry("a timed-out delivery: Failed", "slow", v1alpha1.NotificationFailed, nil),
			Entry("no delivery: Skipped", "absent", v1alpha1.NotificationSkipped, nil),
		)
		DescribeTable("gives a PreExistingPods Notification the phase of its final pod records", req(spec.NOTIF014Failed, spec.NOTIF014Succeeded, spec.NOTIF014Skipped),
			func(key string, want v1alpha1.NotificationPhase) {
				v := seen.view(key)
				Expect(v.Status.Phase).To(Equal(want), "%s", v)
			},
			Entry("a Succeeded record: Succeeded", "inspect", v1alpha1.NotificationSucceeded),
			Entry("a Failed record: Failed", "fail", v1alpha1.NotificationFailed),
			Entry("only a Skipped record: Skipped", "absent", v1alpha1.NotificationSkipped),
		)
		It("counts the pod records per phase in the status", req(spec.NOTIF016), func() {
			for _, key := range keys {
				expectCountsMatchRecords(seen.view(key))
			}
		})
		It("lists the failed and skipped deliveries in status.failures", req(spec.NOTIF017), func() {
			v := seen.view("fail")
			Expect(v.Status.Failures).To(ConsistOf(And(
				HaveField("Pod", pod()), HaveField("Container", "app"), HaveField("Reason", v1alpha1.ReasonHandlerFailed))), "%s", v)
			v = seen.view("inspect")
			Expect(v.Status.Failures).To(ConsistOf(
				And(HaveField("Container", "late"), HaveField("Reason", v1alpha1.ReasonNotEligible)),
				And(HaveField("Container", "done"), HaveField("Reason", v1alpha1.ReasonNotEligible))), "%s", v)
		})
		It("keeps one pod record per target pod, readable with notification results", req(spec.NOTIF018), func() {
			for _, key := range keys {
				v := seen.view(key)
				expectOneRecordPerTarget(v)
				Expect(v.Records).To(HaveLen(1), "%s", v)
				Expect(v.Records[0].PodUID).To(Equal(get().Pod.UID), "%s", v)
			}
		})
	})
}

// ptr32 returns a pointer to n.
func ptr32(n int32) *int32 { return &n }

// registerNotifierInstanceEnds: the target instance ends while the action runs, first because
// the container exits and is restarted, then because the pod is stopped (NTF-013); the
// restarted container does not get the first Notification again (NTF-010).
func (s *suite) registerNotifierInstanceEnds() {
	seen := newNtfSeen()
	sc := &fw.Scenario{
		Short:   "ntf-ends",
		Profile: spec.ProfileNotifier,
		// app's first instance exits 1 once the harness creates "die"; the next one loops.
		Pod: fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyAlways).Grace(10)).
			Main("app", fw.ExitAfter(1, 0).WaitFor("die").Codes("1", "loop"),
				fw.NotifierExec("hold", fw.HookHandler(40*time.Second, 0)), fw.NotifierTimeout("hold", ntfTimeout)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := p.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			started := func(n int) func(*fw.Timeline) bool {
				return func(tl *fw.Timeline) bool { return handlerStarts(tl, "app", "hold") >= n }
			}
			if err := seen.notify(ctx, f, "restart", "ne-restart", v1alpha1.NotificationSpec{Notifier: "hold", Pods: []string{p.Name}}); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "the first hold handler", p.PodTimeout(), started(1)); err != nil {
				return err
			}
			if err := p.Touch("die"); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "restart"); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "app's second instance", p.PodTimeout(), func(tl *fw.Timeline) bool { return len(tl.Instances("app")) >= 2 }); err != nil {
				return err
			}
			if err := p.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			// Long enough for a runtime that (wrongly) delivers again to the new instance.
			if err := pause(ctx, 2*f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			if err := seen.notify(ctx, f, "stop", "ne-stop", v1alpha1.NotificationSpec{Notifier: "hold", Pods: []string{p.Name}}); err != nil {
				return err
			}
			if _, err := p.WaitFor(ctx, "the second hold handler", p.PodTimeout(), started(2)); err != nil {
				return err
			}
			if err := p.Stop(ctx, nil, false); err != nil {
				return err
			}
			return seen.final(ctx, f, "stop")
		},
	}
	s.ordered("A delivery whose container instance ends", sc, func(get func() *fw.Outcome) {
		DescribeTable("fails with the reason of the instance's end", req(spec.NTF013),
			func(key, reason string) {
				v := seen.view(key)
				d := v.Delivery(get().Pod.Name, "app")
				Expect(d).NotTo(BeNil(), "%s", v)
				Expect(d.Phase).To(Equal(v1alpha1.NotificationFailed), "%s", v)
				Expect(d.Reason).To(Equal(reason), "%s", v)
			},
			Entry("the container exits and is restarted: ContainerRestarted", "restart", v1alpha1.ReasonContainerRestarted),
			Entry("the pod is stopped: PodTerminated", "stop", v1alpha1.ReasonPodTerminated),
		)
		It("does not deliver the Notification again to the restarted container", req(spec.NTF010), func() {
			tl := get().Timeline
			Expect(handlerStarts(tl, "app", "hold")).To(Equal(2), "one hold handler per Notification\n%s", tl)
			runs := tl.All(notifierRun(runtimev1.EventNotifierStarted, "app", seen.names["restart"]))
			Expect(runs).To(HaveLen(1), "%s", tl)
			first, ok := tl.First(fw.RuntimeEv(runtimev1.EventContainerStarted, "app"))
			Expect(ok).To(BeTrue())
			Expect(runs[0].Runtime.ContainerID).To(Equal(first.Runtime.ContainerID), "the first Notification ran in the first instance\n%s", tl)
			d := seen.view("restart").Delivery(get().Pod.Name, "app")
			Expect(d.ContainerID).To(Equal(first.Runtime.ContainerID), "%s", seen.view("restart"))
		})
	})
}

// registerNotifierOrder: three Notifications of one notifier to one container run one at a
// time in creation order (HB-017); one Notification to two containers runs in both at once
// (HB-021).
func (s *suite) registerNotifierOrder() {
	seen := newNtfSeen()
	keys := []string{"tick-1", "tick-2", "tick-3"}
	sc := &fw.Scenario{
		Short:   "ntf-order",
		Profile: spec.ProfileNotifier,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).
			Main("a", fw.Loop(), fw.NotifierExec("tick", fw.HookHandler(time.Second, 0)), fw.NotifierTimeout("tick", ntfTimeout),
				fw.NotifierExec("long", fw.HookHandler(4*time.Second, 0)), fw.NotifierTimeout("long", ntfTimeout)).
			Main("b", fw.Loop(), fw.NotifierExec("long", fw.HookHandler(4*time.Second, 0)), fw.NotifierTimeout("long", ntfTimeout)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := p.WaitContainersStarted(ctx, "a", "b"); err != nil {
				return err
			}
			for _, key := range keys {
				if err := seen.notifyPod(ctx, f, key, p, "tick"); err != nil {
					return err
				}
			}
			for _, key := range keys {
				if err := seen.final(ctx, f, key); err != nil {
					return err
				}
			}
			if err := seen.notifyPod(ctx, f, "long", p, "long"); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "long"); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("Deliveries to one pod", sc, func(get func() *fw.Outcome) {
		It("run one at a time per container and notifier, in the order the Notifications were created", req(spec.HB017), func() {
			tl := get().Timeline
			var order []string
			for _, e := range tl.All(fw.RuntimeEv(runtimev1.EventNotifierStarted, "a")) {
				if e.Runtime.Notifier == "tick" {
					order = append(order, e.Runtime.Notification)
				}
			}
			Expect(order).To(Equal([]string{seen.names["tick-1"], seen.names["tick-2"], seen.names["tick-3"]}), "NotifierStarted of tick in a, in creation order\n%s", tl)
			for i := 1; i < len(keys); i++ {
				prev, next := seen.names[keys[i-1]], seen.names[keys[i]]
				Expect(tl.Before(next+" starts after "+prev+" ended", notifierRun(runtimev1.EventNotifierFinished, "a", prev), notifierRun(runtimev1.EventNotifierStarted, "a", next))).To(Succeed())
			}
			// Seen from inside the container: start, end, start, end, start, end.
			var seq []string
			for _, e := range tl.All(func(e fw.Entry) bool {
				return handlerEv("a", "tick", probe.TypeHandlerStart)(e) || handlerEv("a", "tick", probe.TypeHandlerEnd)(e)
			}) {
				seq = append(seq, e.Probe.Type)
			}
			Expect(seq).To(Equal([]string{probe.TypeHandlerStart, probe.TypeHandlerEnd, probe.TypeHandlerStart, probe.TypeHandlerEnd, probe.TypeHandlerStart, probe.TypeHandlerEnd}),
				"tick's handlers in a never overlap\n%s", tl)
		})
		It("does not delay a delivery to one container for a delivery to another", req(spec.HB021), func() {
			tl := get().Timeline
			Expect(tl.Before("b's long handler starts before a's ends", handlerEv("b", "long", probe.TypeHandlerStart), handlerEv("a", "long", probe.TypeHandlerEnd))).To(Succeed())
			Expect(tl.Before("a's long handler starts before b's ends", handlerEv("a", "long", probe.TypeHandlerStart), handlerEv("b", "long", probe.TypeHandlerEnd))).To(Succeed())
		})
	})
}

// lingerTwice waits until app is Started, creates a Notification of linger (20 s) to it under
// key first and, once its handler runs, a second one under key second, whose delivery must wait
// for the first (HB-017).
func lingerTwice(ctx context.Context, f *fw.Framework, p *fw.Pod, seen *ntfSeen, first, second string) error {
	if err := p.WaitContainersStarted(ctx, "app"); err != nil {
		return err
	}
	if err := seen.notifyPod(ctx, f, first, p, "linger"); err != nil {
		return err
	}
	if _, err := p.WaitFor(ctx, "the first linger handler", p.PodTimeout(), func(tl *fw.Timeline) bool {
		return handlerStarts(tl, "app", "linger") >= 1
	}); err != nil {
		return err
	}
	return seen.notifyPod(ctx, f, second, p, "linger")
}

// registerNotifierDeletedWhileWaiting: two Notifications of linger (20 s) to one container; the
// second one's delivery must wait for the first one's (HB-017), and the second Notification is
// deleted while it waits. Once the first delivery ended, the second must never start
// (NOTIF-020): a runtime that checks for the deletion only when it hands out a turn, not when
// a waiting delivery would start, runs it.
func (s *suite) registerNotifierDeletedWhileWaiting() {
	seen := newNtfSeen()
	sc := &fw.Scenario{
		Short:   "ntf-delwait",
		Profile: spec.ProfileNotifier,
		Pod:     ntfTarget("delwait", nil),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := lingerTwice(ctx, f, p, seen, "first", "queued"); err != nil {
				return err
			}
			// Give the runtime the moment it needs to take the second Notification's turn (its
			// record leaves Pending), at most the Reaction tolerance: a runtime may also keep
			// the record Pending while the delivery waits, so this is no condition.
			taken := func(v *fw.NotificationView) bool {
				r := v.Record(p.Name)
				return r != nil && r.Phase != v1alpha1.NotificationPending
			}
			if v, _ := f.AwaitNotificationWithin(ctx, seen.names["queued"], "the second Notification's turn taken", f.Tolerances().Reaction, taken); v != nil {
				seen.views["queued-waiting"] = v
			}
			if err := f.RemoveNotification(ctx, seen.names["queued"]); err != nil {
				return err
			}
			seen.when["queued-removed"] = time.Now()
			// The first delivery's end (the second may start only then), then room for a
			// runtime that (wrongly) starts the second.
			if _, err := p.WaitFor(ctx, "the first delivery's NotifierFinished", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(notifierRun(runtimev1.EventNotifierFinished, "app", seen.names["first"]))
				return ok
			}); err != nil {
				return err
			}
			if err := pause(ctx, 2*f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A Notification deleted while its delivery waits for an earlier one", sc, func(get func() *fw.Outcome) {
		It("never starts that delivery, also once the earlier one ended", req(spec.NOTIF020), func() {
			tl := get().Timeline
			// The premise: the second Notification was deleted while the first delivery ran,
			// so its own delivery had to wait (HB-017).
			fin, ok := tl.First(notifierRun(runtimev1.EventNotifierFinished, "app", seen.names["first"]))
			Expect(ok).To(BeTrue(), "the first delivery finished\n%s", tl)
			Expect(fin.Time.After(seen.when["queued-removed"])).To(BeTrue(), "the premise: the second Notification was deleted (%s) before the first delivery finished (%s)\n%s",
				seen.when["queued-removed"].Format(time.StampMilli), fin.Time.Format(time.StampMilli), tl)
			Expect(tl.NeverHappened("a delivery of the deleted Notification", notifierRun(runtimev1.EventNotifierStarted, "", seen.names["queued"]))).To(Succeed())
			Expect(handlerStarts(tl, "app", "linger")).To(Equal(1), "only the first Notification's linger handler runs, not the deleted one's\n%s\n%s", seen.views["queued-waiting"], tl)
		})
	})
}

// registerNotifierEarlierDeleted: two Notifications of linger (20 s) to one container; the first
// is deleted while its delivery runs. That delivery goes on (NOTIF-019), so the second one's must
// still wait for it to end (HB-017): a runtime that orders deliveries by the Notifications that
// exist lets the second overlap it.
func (s *suite) registerNotifierEarlierDeleted() {
	seen := newNtfSeen()
	sc := &fw.Scenario{
		Short:   "ntf-delfirst",
		Profile: spec.ProfileNotifier,
		Pod:     ntfTarget("delfirst", nil),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := lingerTwice(ctx, f, p, seen, "first", "next"); err != nil {
				return err
			}
			if err := f.RemoveNotification(ctx, seen.names["first"]); err != nil {
				return err
			}
			seen.when["first-removed"] = time.Now()
			if err := seen.final(ctx, f, "next"); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A Notification deleted while its delivery runs, with a later one of the same notifier", sc, func(get func() *fw.Outcome) {
		It("still comes first: the later delivery starts only once the deleted one's has ended", req(spec.HB017), func() {
			tl := get().Timeline
			first, next := seen.names["first"], seen.names["next"]
			fin, ok := tl.First(notifierRun(runtimev1.EventNotifierFinished, "app", first))
			Expect(ok).To(BeTrue(), "the deleted Notification's delivery finished\n%s", tl)
			Expect(fin.Time.After(seen.when["first-removed"])).To(BeTrue(), "the premise: the first Notification was deleted (%s) while its delivery ran (finished %s)\n%s",
				seen.when["first-removed"].Format(time.StampMilli), fin.Time.Format(time.StampMilli), tl)
			Expect(tl.Before(next+" starts after the deleted "+first+" ended", notifierRun(runtimev1.EventNotifierFinished, "app", first), notifierRun(runtimev1.EventNotifierStarted, "app", next))).To(Succeed())
			var seq []string
			for _, e := range tl.All(func(e fw.Entry) bool {
				return handlerEv("app", "linger", probe.TypeHandlerStart)(e) || handlerEv("app", "linger", probe.TypeHandlerEnd)(e)
			}) {
				seq = append(seq, e.Probe.Type)
			}
			Expect(seq).To(Equal([]string{probe.TypeHandlerStart, probe.TypeHandlerEnd, probe.TypeHandlerStart, probe.TypeHandlerEnd}),
				"the two linger handlers in app never overlap\n%s", tl)
		})
	})
}

// registerNotifierTerminating: a Notification to a pod whose stop sequence has begun (NOTIF-008;
// it catches the mutant notify_terminating, docs/mutants.md), then to the same pod once it is
// terminal (NOTIF-009).
func (s *suite) registerNotifierTerminating() {
	seen := newNtfSeen()
	sc := &fw.Scenario{
		Short:   "ntf-terminating",
		Profile: spec.ProfileNotifier,
		// app lingers 6 s after its stop signal: the pod stays terminating long enough for the
		// Notification's turn to come.
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(30).
			Main("app", fw.Loop().On("SIGTERM", "exit:6s:0"), fw.NotifierExec("inspect", fw.HookHandler(0, 0)), fw.NotifierTimeout("inspect", ntfTimeout)),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			// The stop must find app trapping SIGTERM, or app dies at once and the pod is
			// terminal, not terminating, when the Notification's turn comes: the probe reports
			// its start once its signal handlers are in place (the runtime's Started can come
			// before that).
			if err := p.WaitForProbe(ctx, "app's start", p.PodTimeout(), fw.ProbeReported("app", probe.TypeStart)); err != nil {
				return err
			}
			if err := p.Stop(ctx, nil, false); err != nil {
				return err
			}
			st, err := p.Status(ctx)
			if err != nil {
				return err
			}
			if c := st.Condition(v1alpha1.PodTerminating); c != nil {
				seen.notes["terminating"] = string(c.Status)
			}
			if err := seen.notifyPod(ctx, f, "terminating", p, "inspect"); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "terminating"); err != nil {
				return err
			}
			if _, err := p.Wait(ctx); err != nil {
				return err
			}
			if err := seen.notifyPod(ctx, f, "terminal", p, "inspect"); err != nil {
				return err
			}
			return seen.final(ctx, f, "terminal")
		},
	}
	s.ordered("A Notification to a pod that is stopping or stopped", sc, func(get func() *fw.Outcome) {
		It("skips a pod that is terminating when its turn comes with PodTerminating, and delivers nothing", req(spec.NOTIF008), func() {
			Expect(seen.notes).To(HaveKeyWithValue("terminating", string(v1alpha1.ConditionTrue)), "the pod was terminating when the Notification was created")
			v := seen.view("terminating")
			r := v.Record(get().Pod.Name)
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.Reason).To(Equal(v1alpha1.ReasonPodTerminating), "the pod record's reason\n%s", v)
			Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
			expectNoDelivery(get().Timeline, "app", "inspect")
		})
		It("skips a pod that is terminal when its turn comes with PodTerminated, and delivers nothing", req(spec.NOTIF009), func() {
			v := seen.view("terminal")
			r := v.Record(get().Pod.Name)
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.Reason).To(Equal(v1alpha1.ReasonPodTerminated), "%s", v)
			Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
			expectNoDelivery(get().Timeline, "app", "inspect")
		})
	})
}

// registerNotifierTimeoutTree: the action of notifier tree outlives its timeoutSeconds after
// starting a child in a session of its own (so outside the action's process group) and a
// grandchild under that child; each of the three would report its end treeSleep after its
// start. NTF-008 requires the whole process tree killed at the timeout, so none of them may.
func (s *suite) registerNotifierTimeoutTree() {
	// The timeout leaves room for `runc exec` and the descendants' start on a loaded machine.
	timeout := killTimer(s.opts.Framework.Tolerances)
	treeSleep := time.Duration(2*timeout) * time.Second
	tree := []string{"tree", "tree.1", "tree.2"} // the action, its child and its grandchild
	seen := newNtfSeen()
	sc := &fw.Scenario{
		Short:   "ntf-tree",
		Profile: spec.ProfileNotifier,
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).
			Main("app", fw.Loop(), fw.NotifierExec("tree", fw.HookHandler(treeSleep, 0).Descendants(len(tree)-1)), fw.NotifierTimeout("tree", int32(timeout))),
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if err := p.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			if err := seen.notify(ctx, s.f, "tree", "nt-tree", v1alpha1.NotificationSpec{Notifier: "tree", Pods: []string{p.Name}}); err != nil {
				return err
			}
			if err := seen.final(ctx, s.f, "tree"); err != nil {
				return err
			}
			// Every process of the tree started before the delivery was final: one that
			// survived would report its end treeSleep after its start.
			if err := sleepCtx(ctx, treeSleep+s.f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A notifier action with descendants that outlives its timeout", sc, func(get func() *fw.Outcome) {
		It("is killed with its whole process tree, descendants in a session of their own included, and recorded HandlerTimeout", req(spec.NTF008), func() {
			tl := get().Timeline
			v := seen.view("tree")
			d := v.Delivery(get().Pod.Name, "app")
			Expect(d).NotTo(BeNil(), "%s", v)
			Expect(d.Phase).To(Equal(v1alpha1.NotificationFailed), "%s", v)
			Expect(d.Reason).To(Equal(v1alpha1.ReasonHandlerTimeout), "%s", v)
			for _, h := range tree {
				// Ground truth: the process was part of the tree before the timeout.
				Expect(countMatches(tl, handlerEv("app", h, probe.TypeHandlerStart))).To(Equal(1), "%s reports its start once\n%s", h, tl)
				Expect(tl.NeverHappened("the end of "+h+" (it sleeps "+treeSleep.String()+")", handlerEv("app", h, probe.TypeHandlerEnd))).To(Succeed())
			}
		})
	})
}
