package suites

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/model"
)

// conformsText is the text of the spec that judges a scenario's whole history by the model.
const conformsText = "its whole history conforms (the lifecycle model)"

// ModelLabel labels every model spec, so that a run can select the model's verdicts alone
// (--label-filter 'model && ...') or leave them out ('!model'): a model spec carries nearly
// every requirement the model judges, so a filter on one requirement selects every scenario's.
const ModelLabel = "model"

// modelLabels are the labels of a scenario's model spec: every requirement the model judges on a
// pod with the scenario's manifest (nil when the scenario has no pod the model judges), those of
// updates and of a supervisor's loss only when the scenario needs the profile that has them
// (update, recovery): a scenario that neither updates its pod nor crashes its supervisor gives
// those rules nothing to judge.
func modelLabels(sc *fw.Scenario) Labels {
	if sc.Refused || sc.Pod == nil {
		return nil
	}
	pod := sc.Pod.Build(fw.BuildEnv{Name: sc.Short})
	var sched model.Schedule
	for _, p := range append([]runtimev1.Profile{profileOf(sc)}, sc.Needs...) {
		sched.Updates = sched.Updates || p == runtimev1.ProfileUpdate
		sched.Crashes = sched.Crashes || p == runtimev1.ProfileRecovery
	}
	return append(Labels{ModelLabel}, req(model.Rules(pod, sched)...)...)
}

// conforms declares the spec that judges a scenario's whole history by the lifecycle model
// (package model), inside the scenario's container: every event the specification does not
// allow at that point, every missing event and every field that does not match fails it, each
// naming its requirement. get reads the scenario's outcome.
func (s *suite) conforms(sc *fw.Scenario, get func(context.Context) *fw.Outcome) {
	labels := modelLabels(sc)
	if labels == nil {
		return
	}
	It(conformsText, labels, func(ctx SpecContext) {
		out := get(ctx)
		if out == nil || out.Timeline == nil || out.Pod == nil {
			Fail(fmt.Sprintf("scenario %s has no history to judge", sc.Short))
		}
		v, err := s.judge(out)
		if err != nil {
			Fail(err.Error())
		}
		AddReportEntry("model verdict", v.String(), ReportEntryVisibilityFailureOrVerbose)
		if !v.Conforms() {
			Fail(fmt.Sprintf("%s\n\n%s", v, out.Timeline))
		}
		// The model judges a history whose events and reports disagree too (it attaches the
		// reports to instances only where they line up); the disagreement fails the spec after.
		expectConsistent(sc, out)
	})
}

// judgeRest declares a model spec for every scenario that no ordered container judges (the
// scenarios that feed tables), each in a container of its own. It is registered last: Ginkgo
// builds the top-level containers in order, so its body runs once every scenario is declared.
func (s *suite) judgeRest() {
	Describe("The lifecycle model on the tables' scenarios", func() {
		for _, sc := range s.scenarios.List() {
			if s.judged[sc] || modelLabels(sc) == nil {
				continue
			}
			Describe("scenario "+sc.Short, scenarioLabels(sc), func() {
				s.conforms(sc, func(ctx context.Context) *fw.Outcome { return s.awaitRun(ctx, sc) })
			})
		}
	})
}

// judge runs the model on a scenario's outcome.
func (s *suite) judge(out *fw.Outcome) (*model.Verdict, error) {
	if out == nil || out.Timeline == nil || out.Pod == nil {
		return nil, fmt.Errorf("no history to judge")
	}
	h, err := history(out)
	if err != nil {
		return nil, err
	}
	h.Notifications = notifications(s.f, out.Pod.Name)
	if len(h.Notifications) > 0 {
		h.Pods = podLives(s.f)
	}
	tol := s.f.Tolerances()
	return model.Check(h, model.Options{Reaction: tol.Reaction.Value, EarlyMargin: tol.EarlyMargin.Value}), nil
}

// history is what the model judges of a scenario's outcome: the manifest the runtime was given,
// the runtime's events, the workloads' reports, the final status and what the harness read of
// the pod's images before it ran it.
func history(out *fw.Outcome) (model.History, error) {
	data, err := os.ReadFile(out.Pod.Manifest)
	if err != nil {
		return model.History{}, fmt.Errorf("read the manifest of %s: %w", out.Pod.Name, err)
	}
	var pod v1alpha1.Pod
	if err := json.Unmarshal(data, &pod); err != nil {
		return model.History{}, fmt.Errorf("decode the manifest of %s: %w", out.Pod.Name, err)
	}
	h := model.History{Pod: &pod, Events: out.Timeline.RuntimeEvents()}
	h.Updates = updates(out.Pod)
	for ref, img := range out.Pod.Images() {
		if h.Images == nil {
			h.Images = map[string]model.Image{}
		}
		h.Images[ref] = model.Image{ID: img.ID, Entrypoint: img.Entrypoint, Cmd: img.Cmd, User: img.User,
			UsersKnown: img.UserDB.Known, Users: img.UserDB.Users, Groups: img.UserDB.Groups}
	}
	for _, k := range out.Pod.Crashes() {
		h.Crashes = append(h.Crashes, model.Crash{Issued: k.Issued, Returned: k.Returned})
	}
	for _, e := range out.Timeline.Entries {
		if e.Probe != nil {
			h.Probe = append(h.Probe, *e.Probe)
		}
	}
	if out.Final != nil {
		h.Final = out.Final.PodStatus
	}
	return h, nil
}

// notifications are the Notifications the run created about a pod, as the model judges them:
// each spec, when it was issued and every read of it.
func notifications(f *fw.Framework, pod string) []model.Notification {
	if f == nil {
		return nil
	}
	var out []model.Notification
	for _, l := range f.Notified(pod) {
		n := model.Notification{Name: l.Name, Spec: l.Spec, Issued: l.Issued, Returned: l.Returned, Removing: l.Removing, Removed: l.Removed}
		for _, v := range l.Views {
			if v.Status != nil {
				n.Views = append(n.Views, model.NotificationView{Read: v.Read, Status: *v.Status, Records: v.Records})
			}
		}
		out = append(out, n)
	}
	return out
}

// podLives are the pods the run asked the runtime to create, as the model judges a
// Notification's targets by them: each name, UID, labels as submitted and updated, and when it
// was created and removed.
func podLives(f *fw.Framework) []model.PodLife {
	var out []model.PodLife
	for _, p := range f.Pods() {
		if !p.Created() {
			continue
		}
		l := p.Life()
		out = append(out, model.PodLife{Name: p.Name, UID: p.UID, Labels: l.Labels, Run: l.Run, Ran: l.Ran,
			Removing: l.Removing, Removed: l.Removed, Updates: updates(p)})
	}
	return out
}

// updates are the model's record of the harness's updates of a pod.
func updates(p *fw.Pod) []model.Update {
	var out []model.Update
	for _, u := range p.Updates() {
		out = append(out, model.Update{Issued: u.Issued, Returned: u.Returned, Pod: u.Manifest, Accepted: u.Accepted})
	}
	return out
}
