package suites

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Notification specs across pods: target selection and policies, parallelism, deletion, and
// pods that are gone when their turn comes. The pods of a test carry the run's and the test's
// labels (PodBuilder.TestLabels), so that a selector matches nothing else in the runtime's root.

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
	}
	return nil
}

// ntfTarget is a pod of the notification tests: app loops and declares hold (2 s) and linger
// (20 s: long enough for the harness to act while it runs, also on a loaded machine); opts
// change app.
func ntfTarget(test string, extra map[string]string, opts ...fw.ContainerOpt) *fw.PodBuilder {
	return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(10).TestLabels(test, extra).
		Main("app", fw.Loop(), append([]fw.ContainerOpt{
			fw.NotifierExec("hold", fw.HookHandler(2*time.Second, 0)), fw.NotifierTimeout("hold", ntfTimeout),
			fw.NotifierExec("linger", fw.HookHandler(20*time.Second, 0)), fw.NotifierTimeout("linger", ntfTimeout)}, opts...)...)
}

// startExtra starts one more pod for a scenario and waits until its containers are Started.
func (s *suite) startExtra(ctx context.Context, seen *ntfSeen, key, short string, b *fw.PodBuilder, started ...string) (*fw.Pod, error) {
	p, err := s.f.Start(ctx, short, b)
	if p != nil {
		seen.pods[key] = p
	}
	if err != nil {
		return p, err
	}
	return p, p.WaitContainersStarted(ctx, started...)
}

// finishExtras reads the timelines of the scenario's extra pods (those not read yet) and removes
// them; when the scenario failed (failed non-nil), it first keeps their failure evidence
// (framework.KeepEvidence), since nothing of them is left afterwards.
func (s *suite) finishExtras(ctx context.Context, seen *ntfSeen, failed error) error {
	var errs []error
	for key, p := range seen.pods {
		if failed != nil {
			if err := s.f.KeepEvidence(ctx, p, fmt.Sprintf("extra pod %s of a failed scenario: %v", key, failed)); err != nil {
				errs = append(errs, err)
			}
		}
		if _, done := seen.timelines[key]; !done && p.Created() {
			tl, err := p.Timeline(ctx)
			seen.timelines[key] = tl
			if err != nil {
				errs = append(errs, err)
			}
		}
		if err := p.Cleanup(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("extra pods: %v", errs)
	}
	return nil
}

// withExtras is the Drive of a scenario that starts extra pods: it waits until the scenario's
// pod has app Started, runs body, then reads the timelines of the extra pods and removes them,
// however body ended.
func (s *suite) withExtras(seen *ntfSeen, body func(context.Context, *fw.Pod) error) func(context.Context, *fw.Pod) error {
	return func(ctx context.Context, p *fw.Pod) (err error) {
		defer func() {
			if cerr := s.finishExtras(context.WithoutCancel(ctx), seen, err); err == nil {
				err = cerr
			}
		}()
		if err := p.WaitContainersStarted(ctx, "app"); err != nil {
			return err
		}
		return body(ctx, p)
	}
}

// firstWith polls the timelines of pods until one of them satisfies cond and returns its key.
func firstWith(ctx context.Context, seen *ntfSeen, keys []string, what string, timeout time.Duration, cond func(*fw.Timeline) bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		for _, k := range keys {
			if tl, err := seen.pods[k].Timeline(ctx); err == nil && cond(tl) {
				return k, nil
			}
		}
		if err := pause(ctx, fw.PollInterval); err != nil {
			return "", fmt.Errorf("waiting %v for %s: %w", timeout, what, err)
		}
	}
}

// registerNotificationParallelism: three target pods. A Notification with parallelism 1
// (NOTIF-006); one deleted while its first delivery runs (NOTIF-019, NOTIF-020); one whose
// later target is removed before its turn (NOTIF-009). The last two use linger, whose 20 s
// leave the harness time to act while the delivery runs.
func (s *suite) registerNotificationParallelism() {
	seen := newNtfSeen()
	pods := []string{"p1", "p2", "p3"}
	one := int32(1)
	sc := &fw.Scenario{
		Short:   "ntf-par",
		Profile: spec.ProfileNotifier,
		Pod:     ntfTarget("par", nil),
		Drive: func(ctx context.Context, p *fw.Pod) (err error) {
			f := s.f
			seen.pods["p1"] = p
			defer func() {
				delete(seen.pods, "p1") // the scenario removes its own pod
				if cerr := s.finishExtras(context.WithoutCancel(ctx), seen, err); err == nil {
					err = cerr
				}
				seen.pods["p1"] = p
			}()
			if err := p.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			for _, k := range pods[1:] {
				if _, err := s.startExtra(ctx, seen, k, "ntf-par-"+k, ntfTarget("par", nil), "app"); err != nil {
					return err
				}
			}
			sel := f.TestSelector("par", nil)
			if err := seen.notify(ctx, f, "par", "np-par", v1alpha1.NotificationSpec{Notifier: "hold", Selector: sel, Parallelism: &one}); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "par"); err != nil {
				return err
			}

			// Deleted while its first delivery runs.
			if err := seen.notify(ctx, f, "del", "np-del", v1alpha1.NotificationSpec{Notifier: "linger", Selector: sel, Parallelism: &one}); err != nil {
				return err
			}
			x, err := firstWith(ctx, seen, pods, "the deleted Notification's first delivery", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return handlerStarts(tl, "app", "linger") >= 1
			})
			if err != nil {
				return err
			}
			if err := f.RemoveNotification(ctx, seen.names["del"]); err != nil {
				return err
			}
			seen.when["del-removed"] = time.Now()
			seen.notes["del-running-in"] = x
			// The delivery's end, whichever way it ended: the handler's own end, or the runtime's
			// NotifierFinished of a delivery it (wrongly) interrupted. The NOTIF-019 spec judges
			// which one it was.
			if _, err := seen.pods[x].WaitFor(ctx, "the running delivery's end", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, finished := tl.First(notifierRun(runtimev1.EventNotifierFinished, "app", seen.names["del"]))
				return finished || countMatches(tl, handlerEv("app", "linger", probe.TypeHandlerEnd)) >= 1
			}); err != nil {
				return err
			}
			// Room for a runtime that (wrongly) goes on with the next target.
			if err := pause(ctx, 2*f.Tolerances().Reaction.Value); err != nil {
				return err
			}

			// A target removed before its turn.
			seen.when["rm-created"] = time.Now()
			if err := seen.notify(ctx, f, "rm", "np-rm", v1alpha1.NotificationSpec{Notifier: "linger", Selector: sel, Parallelism: &one}); err != nil {
				return err
			}
			first, err := firstWith(ctx, seen, pods, "the third Notification's first delivery", p.PodTimeout(), func(tl *fw.Timeline) bool {
				_, ok := tl.First(notifierRun(runtimev1.EventNotifierStarted, "app", seen.names["rm"]))
				return ok
			})
			if err != nil {
				return err
			}
			gone := "p2"
			if first == "p2" {
				gone = "p3"
			}
			seen.notes["removed"] = gone
			g := seen.pods[gone]
			seen.notes["removed-name"] = g.Name
			tl, err := g.Timeline(ctx)
			if err != nil {
				return err
			}
			seen.timelines[gone] = tl
			if err := g.Cleanup(ctx); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "rm"); err != nil {
				return err
			}
			for _, k := range pods[1:] {
				if k == gone {
					continue
				}
				if seen.timelines[k], err = seen.pods[k].Timeline(ctx); err != nil {
					return err
				}
			}
			return p.Stop(ctx, nil, false)
		},
	}
	s.ordered("A Notification over several pods", sc, func(get func() *fw.Outcome) {
		timeline := func(k string) *fw.Timeline {
			if k == "p1" {
				return get().Timeline
			}
			tl := seen.timelines[k]
			Expect(tl).NotTo(BeNil(), "timeline of %s", k)
			return tl
		}
		It("has deliveries running in at most spec.parallelism target pods at once", req(spec.NOTIF006), func() {
			type span struct{ start, end time.Time }
			spans := map[string]span{}
			for _, k := range pods {
				tl := timeline(k)
				st, ok1 := tl.First(handlerEv("app", "hold", probe.TypeHandlerStart))
				en, ok2 := tl.First(handlerEv("app", "hold", probe.TypeHandlerEnd))
				Expect(ok1 && ok2).To(BeTrue(), "%s got the parallelism-1 Notification\n%s", k, tl)
				spans[k] = span{st.Time, en.Time}
			}
			for _, a := range pods {
				for _, b := range pods {
					if a < b {
						overlap := spans[a].start.Before(spans[b].end) && spans[b].start.Before(spans[a].end)
						Expect(overlap).To(BeFalse(), "with parallelism 1 the deliveries in %s (%v to %v) and %s (%v to %v) overlap",
							a, spans[a].start.Format(time.StampMilli), spans[a].end.Format(time.StampMilli), b, spans[b].start.Format(time.StampMilli), spans[b].end.Format(time.StampMilli))
					}
				}
			}
			v := seen.view("par")
			Expect(v.Status.Phase).To(Equal(v1alpha1.NotificationSucceeded), "%s", v)
			Expect(v.Status.Succeeded).To(BeEquivalentTo(3), "%s", v)
		})
		It("does not interrupt a running delivery when its Notification is deleted", req(spec.NOTIF019), func() {
			x := seen.notes["del-running-in"]
			tl := timeline(x)
			// Its handler's end, not the third Notification's (linger too, created after it).
			var ends []fw.Entry
			for _, e := range tl.All(handlerEv("app", "linger", probe.TypeHandlerEnd)) {
				if e.Time.Before(seen.when["rm-created"]) {
					ends = append(ends, e)
				}
			}
			Expect(ends).NotTo(BeEmpty(), "the delivery in %s ran to its end (a linger handler ended before the third Notification was created)\n%s", x, tl)
			end := ends[0]
			Expect(end.Time.After(seen.when["del-removed"])).To(BeTrue(), "the delivery was still running when the Notification was deleted\n%s", tl)
			Expect(end.Probe.ExitCode).To(HaveValue(Equal(0)))
			fin := tl.All(notifierRun(runtimev1.EventNotifierFinished, "app", seen.names["del"]))
			Expect(fin).To(HaveLen(1), "%s", tl)
			Expect(fin[0].Runtime.Result).To(Equal("Succeeded"), "%s", tl)
		})
		It("starts no delivery of a deleted Notification", req(spec.NOTIF020), func() {
			for _, k := range pods {
				if k == seen.notes["del-running-in"] {
					continue
				}
				tl := timeline(k)
				Expect(tl.NeverHappened("a delivery of the deleted Notification in "+k, notifierRun(runtimev1.EventNotifierStarted, "", seen.names["del"]))).To(Succeed())
				// linger runs here only for the third Notification.
				for _, e := range tl.All(handlerEv("app", "linger", probe.TypeHandlerStart)) {
					Expect(e.Time.After(seen.when["rm-created"])).To(BeTrue(), "a linger handler in %s started before the third Notification existed\n%s", k, tl)
				}
			}
		})
		It("skips a target pod removed before its turn with PodTerminated, and delivers nothing", req(spec.NOTIF009), func() {
			v := seen.view("rm")
			r := v.Record(seen.notes["removed-name"])
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
			Expect(r.Reason).To(Equal(v1alpha1.ReasonPodTerminated), "%s", v)
			Expect(timeline(seen.notes["removed"]).NeverHappened("a delivery to the removed pod", notifierRun(runtimev1.EventNotifierStarted, "", seen.names["rm"]))).To(Succeed())
			Expect(v.Status.Succeeded).To(BeEquivalentTo(2), "the other two pods got theirs\n%s", v)
		})
		It("counts the pod records per phase in the status", req(spec.NOTIF016), func() {
			expectCountsMatchRecords(seen.view("par"))
			expectCountsMatchRecords(seen.view("rm"))
		})
	})
}

// registerNotificationSelection: which pods a Notification targets, when it decides, and what
// its status says. sel-1 (the scenario's pod) and sel-2 exist when the Notifications are
// created; only sel-1 matches. sel-late matches and is created afterwards; sel-after matches and
// is created once the AllPods Notification is deleted.
func (s *suite) registerNotificationSelection() {
	seen := newNtfSeen()
	const missing = 25 // more failures than status.failures holds
	match := map[string]string{"role": "target"}
	sc := &fw.Scenario{
		Short:   "ntf-sel",
		Profile: spec.ProfileNotifier,
		Pod:     ntfTarget("sel", match),
		Drive: s.withExtras(seen, func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if _, err := s.startExtra(ctx, seen, "other", "ntf-sel-other", ntfTarget("sel", map[string]string{"role": "bystander"}), "app"); err != nil {
				return err
			}
			sel := f.TestSelector("sel", match)
			late := f.PodName("ntf-sel-late")
			var many []string
			for i := range missing {
				many = append(many, f.PodName(fmt.Sprintf("ntf-sel-missing-%02d", i)))
			}
			for _, n := range []struct {
				key  string
				spec v1alpha1.NotificationSpec
			}{
				{"pre", v1alpha1.NotificationSpec{Notifier: "hold", Selector: sel}},
				{"all", v1alpha1.NotificationSpec{Notifier: "hold", Selector: sel, TargetPolicy: v1alpha1.AllPods}},
				{"named", v1alpha1.NotificationSpec{Notifier: "hold", Pods: []string{p.Name, late}}},
				{"many", v1alpha1.NotificationSpec{Notifier: "hold", Pods: many}},
			} {
				if err := seen.notify(ctx, f, n.key, "ns-"+n.key, n.spec); err != nil {
					return err
				}
			}
			for _, key := range []string{"pre", "named", "many"} {
				if err := seen.final(ctx, f, key); err != nil {
					return err
				}
			}
			if err := seen.await(ctx, f, "all", "sel-1's record final", fw.RecordFinal(p.Name)); err != nil {
				return err
			}

			// sel-late: app is Started only once the harness creates late-go; brief exits
			// without ever being Started.
			lp, err := s.startExtra(ctx, seen, "late", "ntf-sel-late",
				ntfTarget("sel", match, fw.Startup(fw.CheckMarker("late-go"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1000})).
					Main("brief", fw.ExitAfter(0, 2*time.Second),
						fw.Startup(fw.CheckMarker("never"), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1000}),
						fw.NotifierExec("hold", fw.HookHandler(0, 0)), fw.NotifierTimeout("hold", ntfTimeout)))
			if err != nil {
				return err
			}
			if _, err := lp.WaitFor(ctx, "brief exited", p.PodTimeout(), func(tl *fw.Timeline) bool {
				in := tl.Instances("brief")
				return len(in) == 1 && !in[0].End.IsZero()
			}); err != nil {
				return err
			}
			if err := lp.Touch("late-go"); err != nil {
				return err
			}
			if err := lp.WaitContainersStarted(ctx, "app"); err != nil {
				return err
			}
			// A runtime that (wrongly) does not target sel-late never gets there: the NOTIF-004
			// spec judges the views, and fails on this error whatever they show.
			if err := seen.await(ctx, f, "all", "sel-late's record final", fw.RecordFinal(lp.Name)); err != nil {
				seen.notes["all-late-await"] = err.Error()
			}
			if err := pause(ctx, f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			// Read again a while later, under keys of their own: the AllPods Notification is
			// still not final, and the decisions made at creation stand now that sel-late exists.
			for _, key := range []string{"all", "pre", "named"} {
				seen.names[key+"-later"] = seen.names[key]
				if err := seen.await(ctx, f, key+"-later", "a read", func(*fw.NotificationView) bool { return true }); err != nil {
					return err
				}
			}
			if err := f.RemoveNotification(ctx, seen.names["all"]); err != nil {
				return err
			}
			if _, err := s.startExtra(ctx, seen, "after", "ntf-sel-after", ntfTarget("sel", match), "app"); err != nil {
				return err
			}
			// Room for a runtime that (wrongly) still delivers the deleted AllPods Notification.
			if err := pause(ctx, 2*f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		}),
	}
	s.ordered("Notification targets", sc, func(get func() *fw.Outcome) {
		self := func() *fw.Pod { return get().Pod }
		extra := func(k string) (*fw.Pod, *fw.Timeline) {
			p, tl := seen.pods[k], seen.timelines[k]
			Expect(p).NotTo(BeNil(), "pod %s", k)
			Expect(tl).NotTo(BeNil(), "timeline of %s", k)
			return p, tl
		}
		It("decides once whether a pod is a target: a pod created later does not become a PreExistingPods target", req(spec.NOTIF002), func() {
			late, tl := extra("late")
			for _, key := range []string{"named-later", "pre-later"} {
				v := seen.view(key)
				Expect(v.Status.Targets).To(Equal(seen.view(key[:len(key)-len("-later")]).Status.Targets), "targets unchanged\n%s", v)
				if r := v.Record(late.Name); r != nil {
					Expect(r.PodUID).To(BeEmpty(), "the record of the name is the PodNotFound one\n%s", v)
					Expect(r.Reason).To(Equal(v1alpha1.ReasonPodNotFound), "%s", v)
				}
			}
			Expect(handlerStarts(tl, "app", "hold")).To(Equal(1), "sel-late's app gets the AllPods Notification only\n%s", tl)
		})
		It("targets exactly the pods that exist and match at creation, by UID, with PreExistingPods", req(spec.NOTIF003), func() {
			v := seen.view("pre")
			Expect(v.Records).To(HaveLen(1), "%s", v)
			Expect(v.Records[0].Pod).To(Equal(self().Name), "%s", v)
			Expect(v.Records[0].PodUID).To(Equal(self().UID), "%s", v)
			Expect(v.Records[0].Phase).To(Equal(v1alpha1.NotificationSucceeded), "%s", v)
			_, tl := extra("other")
			expectNoDelivery(tl, "app", "hold")
		})
		It("also targets matching pods created later with AllPods, until the Notification is deleted", req(spec.NOTIF004), func() {
			late, _ := extra("late")
			v := seen.view("all-later")
			Expect(v.Records).To(HaveLen(2), "sel-1 and sel-late\n%s", v)
			r := v.Record(late.Name)
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.PodUID).To(Equal(late.UID), "%s", v)
			Expect(v.Record(self().Name)).NotTo(BeNil(), "%s", v)
			Expect(seen.notes).NotTo(HaveKey("all-late-await"), "the scenario waited for both records of the AllPods Notification to be final\n%s", v)
			_, other := extra("other")
			expectNoDelivery(other, "app", "hold")
			_, after := extra("after")
			expectNoDelivery(after, "app", "hold")
		})
		It("records a name in spec.pods that names no pod as Skipped with PodNotFound", req(spec.NOTIF005), func() {
			late, _ := extra("late")
			v := seen.view("named")
			r := v.Record(late.Name)
			Expect(r).NotTo(BeNil(), "%s", v)
			Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", v)
			Expect(r.Reason).To(Equal(v1alpha1.ReasonPodNotFound), "%s", v)
			Expect(v.Record(self().Name)).To(HaveField("Phase", v1alpha1.NotificationSucceeded), "%s", v)
			m := seen.view("many")
			Expect(m.Records).To(HaveLen(missing), "%s", m)
			for _, r := range m.Records {
				Expect(r.Phase).To(Equal(v1alpha1.NotificationSkipped), "%s", r.Pod)
				Expect(r.Reason).To(Equal(v1alpha1.ReasonPodNotFound), "%s", r.Pod)
			}
		})
		DescribeTable("delivers to a pod targeted at its creation when each container first becomes eligible", req(spec.NOTIF012),
			func(container string, phase v1alpha1.NotificationPhase, reason string) {
				late, tl := extra("late")
				v := seen.view("all-later")
				d := v.Delivery(late.Name, container)
				Expect(d).NotTo(BeNil(), "%s", v)
				Expect(d.Phase).To(Equal(phase), "%s", v)
				Expect(d.Reason).To(Equal(reason), "%s", v)
				if phase == v1alpha1.NotificationSucceeded {
					Expect(tl.Before(container+" is Started before its delivery", fw.RuntimeEv(runtimev1.EventContainerReady, container), handlerEv(container, "hold", probe.TypeHandlerStart))).To(Succeed())
					Expect(handlerStarts(tl, container, "hold")).To(Equal(1), "%s", tl)
				} else {
					expectNoDelivery(tl, container, "hold")
				}
			},
			Entry("a container that becomes Started: delivered then", "app", v1alpha1.NotificationSucceeded, ""),
			Entry("a container that ends first: Skipped, NotEligible", "brief", v1alpha1.NotificationSkipped, v1alpha1.ReasonNotEligible),
		)
		It("never gives an AllPods Notification a final phase while it exists", req(spec.NOTIF015), func() {
			Expect(seen.notes).NotTo(HaveKey("all-late-await"), "the premise: every record of the AllPods Notification was final")
			for _, key := range []string{"all", "all-later"} {
				v := seen.view(key)
				Expect(fw.FinalNotification(v.Status.Phase)).To(BeFalse(), "every record is final, the Notification is not\n%s", v)
			}
		})
		It("counts the pod records per phase in the status", req(spec.NOTIF016), func() {
			for _, key := range []string{"pre", "all", "all-later", "named", "many"} {
				expectCountsMatchRecords(seen.view(key))
			}
		})
		It("keeps at most 20 failures in the status, the first ones", req(spec.NOTIF017), func() {
			v := seen.view("many")
			Expect(v.Status.Skipped).To(BeEquivalentTo(missing), "%s", v)
			Expect(v.Status.Failures).To(HaveLen(v1alpha1.MaxNotificationFailures), "%s", v)
			names := map[string]bool{}
			for _, r := range v.Records {
				names[r.Pod] = true
			}
			for _, fl := range v.Status.Failures {
				Expect(names).To(HaveKey(fl.Pod), "a failure names a target")
				Expect(fl.Reason).To(Equal(v1alpha1.ReasonPodNotFound))
				delete(names, fl.Pod) // each at most once
			}
		})
		It("keeps one pod record per target pod, readable with notification results", req(spec.NOTIF018), func() {
			for _, key := range []string{"pre", "all-later", "named", "many"} {
				expectOneRecordPerTarget(seen.view(key))
			}
		})
	})
}

// registerNotificationRelabel: an AllPods Notification whose selector matches neither the
// scenario's pod (which exists when it is created) nor a pod created after it, until an update
// gives both pods the selector's labels. Each pod was decided once, from its labels at the
// Notification's creation or at its own (NOTIF-002): neither is a target.
func (s *suite) registerNotificationRelabel() {
	seen := newNtfSeen()
	match, bystander := map[string]string{"role": "target"}, map[string]string{"role": "bystander"}
	sc := &fw.Scenario{
		Short:   "ntf-relabel",
		Profile: spec.ProfileNotifier,
		Needs:   []runtimev1.Profile{spec.ProfileUpdate},
		Pod:     ntfTarget("relabel", bystander),
		Drive: s.withExtras(seen, func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			if err := seen.notify(ctx, f, "all", "nr-all", v1alpha1.NotificationSpec{Notifier: "hold", Selector: f.TestSelector("relabel", match), TargetPolicy: v1alpha1.AllPods}); err != nil {
				return err
			}
			later, err := s.startExtra(ctx, seen, "later", "ntf-relabel-later", ntfTarget("relabel", bystander), "app")
			if err != nil {
				return err
			}
			for _, x := range []*fw.Pod{p, later} {
				_, res, err := x.Update(ctx, ntfTarget("relabel", match))
				if err != nil {
					return err
				}
				if res.ExitCode != 0 {
					return fmt.Errorf("update of %s's labels: %s", x.Name, res)
				}
				if _, err := x.WaitFor(ctx, "the labels update applied", p.PodTimeout(), fw.UpdateApplied(2)); err != nil {
					return err
				}
			}
			// Room for a runtime that (wrongly) decides again from the new labels.
			if err := pause(ctx, 2*f.Tolerances().Reaction.Value); err != nil {
				return err
			}
			if err := seen.await(ctx, f, "all", "a read", func(*fw.NotificationView) bool { return true }); err != nil {
				return err
			}
			if err := f.RemoveNotification(ctx, seen.names["all"]); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		}),
	}
	s.ordered("A pod that gets a Notification's labels after it was decided", sc, func(get func() *fw.Outcome) {
		It("decides once whether a pod is a target: a pod relabelled to match, after the Notification's creation or its own, is no target", req(spec.NOTIF002), func() {
			v := seen.view("all")
			Expect(v.Records).To(BeEmpty(), "neither pod matched when it was decided, at the Notification's creation or at its own\n%s", v)
			expectNoDelivery(get().Timeline, "app", "hold")
			tl := seen.timelines["later"]
			Expect(tl).NotTo(BeNil(), "timeline of the pod created later")
			expectNoDelivery(tl, "app", "hold")
		})
	})
}

// registerNotificationOrder: three target pods created one after another, each only once the
// previous one's app is Started, so their creation times are distinct and their order is the
// harness's. Their names sort in another order (m, z, a: a, m, z) and the Notification, with
// parallelism 1, lists them in a third (a, z, m), so a runtime that takes its targets by name or
// in list order delivers out of creation order (NOTIF-007).
func (s *suite) registerNotificationOrder() {
	seen := newNtfSeen()
	created := []string{"m", "z", "a"} // creation order; the scenario's own pod is m
	one := int32(1)
	sc := &fw.Scenario{
		Short:   "ntf-ord-m",
		Profile: spec.ProfileNotifier,
		Pod:     ntfTarget("ord", nil),
		Drive: s.withExtras(seen, func(ctx context.Context, p *fw.Pod) error {
			f := s.f
			names := map[string]string{"m": p.Name}
			for _, k := range created[1:] {
				x, err := s.startExtra(ctx, seen, k, "ntf-ord-"+k, ntfTarget("ord", nil), "app")
				if err != nil {
					return err
				}
				names[k] = x.Name
			}
			listed := []string{names["a"], names["z"], names["m"]}
			if err := seen.notify(ctx, f, "ord", "no-ord", v1alpha1.NotificationSpec{Notifier: "hold", Pods: listed, Parallelism: &one}); err != nil {
				return err
			}
			if err := seen.final(ctx, f, "ord"); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		}),
	}
	s.ordered("A Notification with parallelism 1 over pods created one after another", sc, func(get func() *fw.Outcome) {
		// NOTIF-007 is a SHOULD: graded, a failure is a warning at compliance level must.
		s.gradedIt("takes the target pods in order of their creation, whatever their names and the order of spec.pods", []string{spec.NOTIF007}, func() {
			v := seen.view("ord")
			Expect(v.Status.Phase).To(Equal(v1alpha1.NotificationSucceeded), "%s", v)
			var prevCreated, prevStart fw.Entry
			for i, k := range created {
				tl := get().Timeline
				if k != "m" {
					tl = seen.timelines[k]
				}
				Expect(tl).NotTo(BeNil(), "timeline of pod %s", k)
				c, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodCreated, ""))
				Expect(ok).To(BeTrue(), "pod %s has a PodCreated\n%s", k, tl)
				st, ok := tl.First(handlerEv("app", "hold", probe.TypeHandlerStart))
				Expect(ok).To(BeTrue(), "pod %s got its delivery\n%s", k, tl)
				if i > 0 {
					// The setup: each pod was created after the previous one.
					Expect(c.Time.After(prevCreated.Time)).To(BeTrue(), "pod %s (created %s) was created after pod %s (%s)",
						k, c.Time.Format(time.StampMilli), created[i-1], prevCreated.Time.Format(time.StampMilli))
					Expect(st.Time.After(prevStart.Time)).To(BeTrue(), "pod %s, created after pod %s, got its delivery at %s, not after pod %s's at %s\n%s",
						k, created[i-1], st.Time.Format(time.StampMilli), created[i-1], prevStart.Time.Format(time.StampMilli), tl)
				}
				prevCreated, prevStart = c, st
			}
		})
	})
}
