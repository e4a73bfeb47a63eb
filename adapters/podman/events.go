package podman

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"time"

	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// Event is one event of the contract's stream (docs/runtime-interface.md, section 5.1).
type Event = rtv1.Event

// podmanEvent is a line of `podman events --format json`.
type podmanEvent struct {
	ID                string    `json:"ID"`
	Name              string    `json:"Name"`
	Status            string    `json:"Status"`
	Type              string    `json:"Type"`
	Time              time.Time `json:"Time"`
	ContainerExitCode *int32    `json:"ContainerExitCode"`
}

// Events translates podman's event log for the pod into the contract's stream: pod create →
// PodCreated, pod start → PodStarted, a container's create, start and died → ContainerCreated,
// ContainerStarted, ContainerExited (a start after a died: ContainerRestarting, then the new
// instance's ContainerCreated and ContainerStarted), the infra container's death without a
// stop request → PolicyFired and PodTerminating (podman's exit policy), a container pod start
// could not start → its ContainerExited (StartError), the adapter's own stop requests →
// StopRequested and PodTerminating, its accepted updates → UpdateApplied (once `podman update`
// returned), and PodFinished once podman reports the pod exited. It is
// computed again on each call from the append-only log, so it is the same every time.
func (a *Adapter) Events(ctx context.Context, name string) ([]Event, bool, error) {
	rec, err := a.load(name)
	if err != nil {
		return nil, false, err
	}
	// The status first: when it is terminal, the log read after it holds every event up to
	// the end.
	st, err := a.Status(ctx, name)
	if err != nil {
		return nil, false, err
	}
	log, err := a.eventLog(ctx, rec)
	if err != nil {
		return nil, false, err
	}
	evs := translateLog(rec, log)
	add := func(e Event) {
		e.Pod, e.PodUID = rec.Name, rec.UID
		evs = append(evs, e)
	}
	// A container podman could not start has no event in podman's log: its end is the
	// StartError the status shows, at the time podman's pod start returned.
	for _, cs := range append(append([]v1alpha1.ContainerStatus{}, st.InitContainerStatuses...), st.ContainerStatuses...) {
		if t := cs.State.Terminated; t != nil && t.Reason == v1alpha1.ReasonStartError {
			kind := "main"
			for _, c := range rec.Containers {
				if c.Name == cs.Name {
					kind = c.Kind
				}
			}
			n := int32(0)
			add(Event{Time: t.FinishedAt, Type: rtv1.EventContainerExited, Container: cs.Name, ContainerKind: kind,
				ContainerID: cs.ContainerID, RestartCount: &n, Reason: t.Reason, Message: t.Message})
		}
	}
	for _, u := range rec.Updates {
		add(Event{Time: u.Time, Type: rtv1.EventUpdateApplied, Generation: u.Generation})
	}
	for _, s := range rec.Stops {
		g := s.GracePeriod
		add(Event{Time: s.Time, Type: rtv1.EventStopRequested, GracePeriodSeconds: &g, Force: s.Force})
	}
	if len(rec.Stops) > 0 {
		add(Event{Time: rec.Stops[0].Time, Type: rtv1.EventPodTerminating, Reason: "StopRequested"})
	}
	sort.SliceStable(evs, func(i, j int) bool {
		if evs[i].Type == rtv1.EventPodCreated != (evs[j].Type == rtv1.EventPodCreated) {
			return evs[i].Type == rtv1.EventPodCreated
		}
		return evs[i].Time.Before(evs[j].Time)
	})
	finished := st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed
	if finished {
		t := rec.CreatedAt
		if len(evs) > 0 {
			t = evs[len(evs)-1].Time
		}
		if st.FinishedAt != nil && st.FinishedAt.After(t) {
			t = *st.FinishedAt
		}
		add(Event{Time: t, Type: rtv1.EventPodFinished, Phase: st.Phase, ExitCode: st.ExitCode, DecidedBy: st.DecidedBy, Reason: st.Reason})
	}
	if len(evs) > 0 && evs[0].Type != rtv1.EventPodCreated {
		// podman's log lost the pod's creation (rotated): the adapter's record has it.
		evs = append([]Event{{Time: rec.CreatedAt, Pod: rec.Name, PodUID: rec.UID, Type: rtv1.EventPodCreated}}, evs...)
	}
	for i := range evs {
		evs[i].Seq = int64(i + 1)
		evs[i].Time = evs[i].Time.UTC()
		if i > 0 && evs[i].Time.Before(evs[i-1].Time) {
			evs[i].Time = evs[i-1].Time
		}
	}
	return evs, finished, nil
}

// eventLog is podman's event log (`podman events --format json`, one event a line) from just
// before the pod's creation on.
func (a *Adapter) eventLog(ctx context.Context, rec *podRecord) ([]byte, error) {
	return a.run(ctx, "events", "--stream=false", "--format", "json", "--since", rec.CreatedAt.Add(-time.Second).Format(time.RFC3339Nano))
}

// translateLog translates the pod's part of podman's event log into the contract's events it
// holds, in the log's order: PodCreated, PodStarted, every instance's ContainerCreated,
// ContainerStarted, ContainerExited and ContainerRestarting, and the exit policy's PolicyFired
// and PodTerminating (Events says how). Events and Status (a restarted container's lastState)
// both read instances from it, so the two agree.
func translateLog(rec *podRecord, log []byte) []Event {
	byID := map[string]containerRecord{}
	for _, c := range rec.Containers {
		byID[c.ID] = c
	}
	var evs []Event
	add := func(e Event) {
		e.Pod, e.PodUID = rec.Name, rec.UID
		evs = append(evs, e)
	}
	restarts := map[string]int32{}
	running := map[string]bool{}
	exited := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	podCreated, podStarted, policyFired := false, false, false
	lastExit := map[string]int32{} // each main container's last exit code
	lastMain := ""                 // the main container that exited last
	for sc.Scan() {
		var pe podmanEvent
		if json.Unmarshal(sc.Bytes(), &pe) != nil {
			continue
		}
		if pe.Type == "pod" && pe.ID == rec.PodID {
			switch pe.Status {
			case "create":
				if !podCreated {
					podCreated = true
					add(Event{Time: pe.Time, Type: rtv1.EventPodCreated})
				}
			}
			continue
		}
		if pe.Type == "container" && pe.ID == rec.InfraID && pe.Status == "died" && podStarted && !policyFired &&
			(len(rec.Stops) == 0 || pe.Time.Before(rec.Stops[0].Time)) {
			// podman's exit policy (--exit-policy stop) stops the pod's infra container once
			// every container exited, and logs no event of its own for it: the infra's death
			// without a stop request is the policy firing. exitPolicy All is the only one
			// podman has (Unsupported refuses the others).
			policyFired = true
			reason := v1alpha1.ReasonCompleted
			for _, code := range lastExit {
				if code != 0 {
					reason = "Failed"
				}
			}
			fired := Event{Time: pe.Time, Type: rtv1.EventPolicyFired, Reason: string(v1alpha1.ExitPolicyAll)}
			if lastMain != "" {
				fired.Container, fired.ContainerKind = lastMain, "main"
			}
			add(fired)
			add(Event{Time: pe.Time, Type: rtv1.EventPodTerminating, Reason: reason})
			continue
		}
		if pe.Type == "container" && pe.ID == rec.InfraID && pe.Status == "start" && !podStarted {
			// The sandbox exists once podman's infra container runs (podman creates the pod's
			// containers before it starts the pod, so this comes after their ContainerCreated).
			podStarted = true
			add(Event{Time: pe.Time, Type: rtv1.EventPodStarted})
			continue
		}
		c, ours := byID[pe.ID]
		if pe.Type != "container" || !ours {
			continue
		}
		n := restarts[c.ID]
		base := Event{Time: pe.Time, Container: c.Name, ContainerKind: c.Kind}
		inst := func(e Event, n int32) Event {
			e.ContainerID, e.RestartCount = instanceID(c.ID, n), &n
			return e
		}
		switch pe.Status {
		case "create":
			e := base
			e.Type = rtv1.EventContainerCreated
			add(inst(e, 0))
		case "start", "restart":
			if running[c.ID] {
				continue
			}
			if exited[c.ID] {
				n++
				restarts[c.ID] = n
				r := base
				r.Type = rtv1.EventContainerRestarting
				add(inst(r, n-1))
				cr := base
				cr.Type = rtv1.EventContainerCreated
				add(inst(cr, n))
			}
			e := base
			e.Type = rtv1.EventContainerStarted
			add(inst(e, n))
			running[c.ID], exited[c.ID] = true, false
		case "died":
			if !running[c.ID] {
				continue
			}
			e := base
			e.Type = rtv1.EventContainerExited
			e.ExitCode = pe.ContainerExitCode
			if e.ExitCode == nil { // podman leaves out an exit code of 0
				zero := int32(0)
				e.ExitCode = &zero
			}
			e.Reason = terminationReason(*e.ExitCode, false, rec.stoppedBy(pe.Time))
			add(inst(e, n))
			if c.Kind == "main" {
				lastExit[c.Name], lastMain = *e.ExitCode, c.Name
			}
			running[c.ID], exited[c.ID] = false, true
		}
	}
	return evs
}
