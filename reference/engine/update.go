package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// In-place updates (docs/spec/update.md). An accepted update replaces the stored manifest at
// once (one atomic state write, metadata.generation + 1) and then takes effect container by
// container:
//
//   - a slot's "effective definition" (slot.c) is separate from the stored manifest; an update
//     writes the changed mutable fields into it unless the change must have no effect (a
//     regular init container that has started, UPD-013);
//   - every change that affects a slot's next instance bumps the slot's spec version; an
//     instance records the version it was created from, so an instance that was being created
//     while the update arrived is discarded unstarted and created again (UPD-012), and an
//     instance that runs an older version is replaced (UPD-007) exactly once, however many
//     updates arrive before its replacement starts;
//   - status.observedGeneration reaches a generation once no restart or resize of that or an
//     earlier generation is still in flight (UPD-006), with one UpdateApplied event per
//     generation.

// ReasonContainerCreating is the waiting reason of a container whose instance an update
// replaced, until the new instance runs.
const ReasonContainerCreating = "ContainerCreating"

// EventUpdateAccepted is recorded when an update is accepted and stored (its message lists the
// changes and their effects); a type of the reference's own (UpdateApplied is the contract's).
const EventUpdateAccepted runtimev1.EventType = "UpdateAccepted"

// EventResizeFailed is recorded when the OCI runtime refuses an accepted update's new
// resources for a running instance (it keeps running with its old limits, UPD-010); a type of
// the reference's own.
const EventResizeFailed runtimev1.EventType = "ResizeFailed"

// ErrUpdateConflict is returned (wrapped) when an update cannot be applied in the pod's
// current state: it is terminating or terminal (UPD-004), or it changed since the update was
// validated.
var ErrUpdateConflict = errors.New("update conflict")

// ErrUpdateUnsupported means the backend cannot do what the update needs (a live resize on an
// OCI runtime without an update verb); the update is refused and nothing changed.
var ErrUpdateUnsupported = errors.New("update refused")

// InvalidUpdateError is returned when the update changes a field that is immutable in place.
type InvalidUpdateError struct {
	// Errs are the UPD findings of validation.ValidatePodUpdate.
	Errs field.ErrorList
}

func (e *InvalidUpdateError) Error() string {
	msgs := make([]string, 0, len(e.Errs))
	for _, x := range e.Errs {
		msgs = append(msgs, x.Error())
	}
	return "the update is not allowed in place: " + strings.Join(msgs, "; ")
}

// Resizer is implemented by backends that can change the resources of a live instance in
// place (OCI runtime update). An update that needs a live resize is refused
// (ErrUpdateUnsupported) on a backend that is no Resizer or whose ResizeSupported fails: a
// restart in its place would break UPD-010.
type Resizer interface {
	// ResizeSupported reports, as an error saying why, whether UpdateResources can work at all
	// (the OCI runtime has an update verb).
	ResizeSupported(ctx context.Context) error
	// UpdateResources sets the cgroup limits of instance id to r.
	UpdateResources(ctx context.Context, id string, r *v1alpha1.ResourceRequirements) error
}

// UpdateRequest is an update as the supervisor receives it.
type UpdateRequest struct {
	// Pod is the new manifest, defaulted and validated on its own.
	Pod *v1alpha1.Pod `json:"pod"`
	// Generation is the metadata.generation the caller validated the update against; the
	// update is refused with ErrUpdateConflict when the pod has changed since (0: no check).
	Generation int64 `json:"generation,omitempty"`
	// Images are the resolved references of the containers whose image the update changes.
	Images map[string]string `json:"images,omitempty"`
}

// UpdateResponse is the supervisor's answer to an update.
type UpdateResponse struct {
	// Status is the pod status once the update was accepted.
	Status *v1alpha1.PodStatus `json:"status,omitempty"`
	// Generation is the pod's metadata.generation after the update.
	Generation int64 `json:"generation,omitempty"`
	// Refused is "Conflict", "Invalid" or "Failed" (the backend cannot do it) when the update
	// was not accepted; Message says why.
	Refused string `json:"refused,omitempty"`
	Message string `json:"message,omitempty"`
}

// HandleUpdate decodes an UpdateRequest and applies it; refusals are part of the response.
func (e *Engine) HandleUpdate(ctx context.Context, payload json.RawMessage) (*UpdateResponse, error) {
	var req UpdateRequest
	if err := json.Unmarshal(payload, &req); err != nil {
		return nil, fmt.Errorf("decode update: %w", err)
	}
	if req.Pod == nil {
		return nil, errors.New("decode update: no pod")
	}
	st, gen, err := e.Update(ctx, &req)
	var inv *InvalidUpdateError
	switch {
	case errors.Is(err, ErrUpdateConflict):
		return &UpdateResponse{Refused: "Conflict", Message: err.Error()}, nil
	case errors.Is(err, ErrUpdateUnsupported):
		return &UpdateResponse{Refused: "Failed", Message: err.Error()}, nil
	case errors.As(err, &inv):
		return &UpdateResponse{Refused: "Invalid", Message: err.Error()}, nil
	case err != nil:
		return nil, err
	}
	return &UpdateResponse{Status: &st, Generation: gen}, nil
}

// updateState is the engine's bookkeeping of in-place updates (guarded by Engine.mu).
type updateState struct {
	// version counts, per container, the updates that changed its next instance.
	version map[string]int64
	// instVersion is the version each instance (by ID) was created from.
	instVersion map[string]int64
	// images are the image references of containers whose image an update changed.
	images map[string]string
	// replacing holds the IDs of instances an update is replacing.
	replacing map[string]bool
	// pending maps a container to the generation of the latest update whose restart of it
	// has not taken effect yet.
	pending map[string]int64
	// resizing counts, per generation, live resizes still in flight.
	resizing map[int64]int
}

func (e *Engine) updLocked() *updateState {
	if e.upd == nil {
		e.upd = &updateState{version: map[string]int64{}, instVersion: map[string]int64{}, images: map[string]string{},
			replacing: map[string]bool{}, pending: map[string]int64{}, resizing: map[int64]int{}}
	}
	return e.upd
}

// instanceRequestLocked describes the next instance of s from its effective definition (a
// copy, so that an update may change the definition while the instance is being created) and
// returns the spec version it is created from.
func (e *Engine) instanceRequestLocked(s *slot, id string, n int32) (*InstanceRequest, int64) {
	u := e.updLocked()
	c := *s.c
	ver := u.version[s.name]
	u.instVersion[id] = ver
	img := e.st.Images[s.name]
	if ref, ok := u.images[s.name]; ok {
		img = ref
	}
	s.status().Image = c.Image
	s.status().ImageID = img
	return &InstanceRequest{ID: id, Kind: s.kind, Container: &c, LogPath: e.pod.LogPath(s.name, n), Image: img}, ver
}

// staleLocked reports whether an update changed s since version ver was used to create an
// instance (UPD-012: that instance must not start).
func (e *Engine) staleLocked(s *slot, ver int64) bool {
	return e.updLocked().version[s.name] != ver
}

// discardCreated removes an instance that was created but must not start.
func (e *Engine) discardCreated(ctx context.Context, id string, pid int) {
	exit := e.w.Watch(pid)
	e.be.DeleteInstance(context.WithoutCancel(ctx), id, e.info)
	select {
	case <-exit:
	case <-time.After(10 * time.Second):
		e.logf("discarded instance %s (pid %d) did not end", id, pid)
	}
}

// Update applies an in-place update (docs/spec/update.md). It returns once the update is
// accepted and persisted — the new manifest stored, the generation incremented — with the
// status and generation at that moment; restarts and resizes then take effect in the
// background, and status.observedGeneration follows. An update that changes nothing returns
// the status unchanged (UPD-005). An update in effect that could not be written to disk (a
// full disk) returns its status with an ErrNotPersisted error.
//
// Its steps, under the engine's lock: check that the update can be accepted and find its
// changes (updateChangesLocked); store the new manifest at the next generation
// (storeUpdateLocked) and the resolved images of the changed containers (pinImagesLocked);
// apply each changed container's effect (applyChangesLocked); re-arm a changed deadline
// (rearmDeadlineLocked); record UpdateAccepted in the same state write. Then, outside the
// lock, resize the running instances whose resources changed (resizeLive).
func (e *Engine) Update(ctx context.Context, req *UpdateRequest) (v1alpha1.PodStatus, int64, error) {
	req.Pod.SetDefaults()
	e.mu.Lock()
	gen := e.st.Pod.Metadata.Generation
	ch, err := e.updateChangesLocked(ctx, req)
	if err != nil {
		e.mu.Unlock()
		return v1alpha1.PodStatus{}, gen, err
	}
	if ch.Empty() {
		unchanged := *deepCopyStatus(e.st.Pod.Status)
		e.mu.Unlock()
		return unchanged, gen, nil
	}

	// Accepted: store the new manifest.
	gen++
	e.storeUpdateLocked(req.Pod, gen)
	oldImages := e.pinImagesLocked(ch, req.Images)
	rc := e.updateCtxLocked()
	resizes := e.applyChangesLocked(rc, req, ch, gen, oldImages)
	e.rearmDeadlineLocked(rc, ch)
	ev := e.event(EventUpdateAccepted, nil, "", updateSummary(ch))
	ev.Generation = gen
	e.commitLocked(append([]*runtimev1.Event{ev}, e.observeLocked()...)...)
	accepted := *deepCopyStatus(e.st.Pod.Status)
	unwritten := e.notPersisted()
	e.mu.Unlock()

	e.resizeLive(ctx, rc, gen, resizes)
	return accepted, gen, unwritten
}

// updateChangesLocked returns the changes of req against the stored manifest, or why the
// update is refused with nothing changed: the pod is terminal or terminating (UPD-004), it
// changed since the caller validated the update, the validator rejects it (UPD-003), it names
// a container the pod does not have or a changed image that was not resolved, or it needs a
// live resize the backend cannot do (UPD-010).
func (e *Engine) updateChangesLocked(ctx context.Context, req *UpdateRequest) (validation.Changes, error) {
	ps := e.st.Pod.Status
	gen := e.st.Pod.Metadata.Generation
	switch {
	case ps.FinishedAt != nil:
		return validation.Changes{}, fmt.Errorf("pod %s is %s: %w", e.info.Name, ps.Phase, ErrUpdateConflict)
	case e.terminating:
		return validation.Changes{}, fmt.Errorf("pod %s is terminating (%s): %w", e.info.Name, spec.UPD004, ErrUpdateConflict)
	case req.Generation != 0 && req.Generation != gen:
		return validation.Changes{}, fmt.Errorf("pod %s changed (generation %d, the update was checked against %d); retry: %w", e.info.Name, gen, req.Generation, ErrUpdateConflict)
	}
	old := e.st.Pod
	old.Status = nil
	if errs := errorsOnly(validation.ValidatePodUpdate(req.Pod, &old)); len(errs) > 0 {
		return validation.Changes{}, &InvalidUpdateError{Errs: errs}
	}
	ch := validation.MutableChanges(req.Pod, &old)
	for _, cc := range ch.Containers {
		if slices.Contains(cc.Fields, "image") && req.Images[cc.Name] == "" {
			return validation.Changes{}, fmt.Errorf("update: the image of container %s changed but no resolved image was given", cc.Name)
		}
		if e.byName[cc.Name] == nil {
			return validation.Changes{}, fmt.Errorf("update: no container %s", cc.Name)
		}
	}
	if err := e.resizeSupportedLocked(ctx, ch); err != nil {
		return validation.Changes{}, err
	}
	return ch, nil
}

// storeUpdateLocked replaces the stored manifest's mutable fields with newPod's, at
// generation gen. The containers get new backing arrays: the slots keep their own (effective)
// definitions.
func (e *Engine) storeUpdateLocked(newPod *v1alpha1.Pod, gen int64) {
	p := &e.st.Pod
	p.Metadata.Generation = gen
	p.Metadata.Labels = maps.Clone(newPod.Metadata.Labels)
	p.Metadata.Annotations = maps.Clone(newPod.Metadata.Annotations)
	p.Spec.ActiveDeadlineSeconds = newPod.Spec.ActiveDeadlineSeconds
	p.Spec.TerminationGracePeriodSeconds = newPod.Spec.TerminationGracePeriodSeconds
	p.Spec.InitContainers = slices.Clone(newPod.Spec.InitContainers)
	p.Spec.Containers = slices.Clone(newPod.Spec.Containers)
}

// pinImagesLocked stores the resolved images of the containers whose image changed and
// returns the images before the update (a started init container keeps its own, UPD-013).
func (e *Engine) pinImagesLocked(ch validation.Changes, resolved map[string]string) map[string]string {
	oldImages := e.st.Images
	images := maps.Clone(e.st.Images)
	if images == nil {
		images = map[string]string{}
	}
	for _, cc := range ch.Containers {
		if slices.Contains(cc.Fields, "image") {
			images[cc.Name] = resolved[cc.Name]
		}
	}
	e.st.Images = images
	return oldImages
}

// updateCtxLocked is the context of an update's background work: the pod's run's.
func (e *Engine) updateCtxLocked() context.Context {
	if e.runCtx == nil {
		return context.Background()
	}
	return e.runCtx
}

// resize is a live resize an accepted update asks for: instance id of slot s gets res.
type resize struct {
	s   *slot
	id  string
	res *v1alpha1.ResourceRequirements
}

// applyChangesLocked takes each changed container of update gen by its effect: a regular init
// container's change is for its next run (applyNextRunLocked), a resize is for the running
// instance (applyResizeLocked), anything else restarts it (applyRestartLocked). It returns the
// live resizes to make, counted as in flight for gen.
func (e *Engine) applyChangesLocked(rc context.Context, req *UpdateRequest, ch validation.Changes, gen int64, oldImages map[string]string) []resize {
	u := e.updLocked()
	var resizes []resize
	for _, cc := range ch.Containers {
		s := e.byName[cc.Name]
		nc := changedContainer(req.Pod, cc)
		effect := cc.Effect
		switch effect {
		case validation.EffectNextRun:
			e.applyNextRunLocked(s, nc, cc, req.Images, oldImages)
		case validation.EffectResize:
			if rz, live := e.applyResizeLocked(s, nc, cc, req.Images); live {
				resizes = append(resizes, rz)
			}
		case validation.EffectRestart:
			e.applyRestartLocked(rc, s, nc, cc, req.Images, gen)
		}
	}
	u.resizing[gen] += len(resizes)
	return resizes
}

// changedContainer is the new definition of the container cc names.
func changedContainer(newPod *v1alpha1.Pod, cc validation.ContainerChange) *v1alpha1.Container {
	if cc.Kind == validation.KindMain {
		return &newPod.Spec.Containers[cc.Index]
	}
	return &newPod.Spec.InitContainers[cc.Index]
}

// applyNextRunLocked uses a regular init container's change only if it has not started
// (UPD-013); one that has keeps its definition, and its image, for its retries.
func (e *Engine) applyNextRunLocked(s *slot, nc *v1alpha1.Container, cc validation.ContainerChange, images, oldImages map[string]string) {
	u := e.updLocked()
	if s.rec().EverRan || s.inst != nil {
		if _, kept := u.images[s.name]; !kept && slices.Contains(cc.Fields, "image") {
			u.images[s.name] = oldImages[s.name] // retries keep the old image too
		}
		return
	}
	e.applyDefinitionLocked(s, nc, cc, images)
}

// applyResizeLocked writes a resize into s's definition, for its next instance, and reports
// the live resize of its running instance, if it has one (UPD-010).
func (e *Engine) applyResizeLocked(s *slot, nc *v1alpha1.Container, cc validation.ContainerChange, images map[string]string) (resize, bool) {
	e.applyDefinitionLocked(s, nc, cc, images)
	if !e.resizesLiveLocked(s) {
		return resize{}, false
	}
	return resize{s: s, id: s.inst.id, res: nc.Resources}, true
}

// resizesLiveLocked reports whether a resize of s is applied to a running instance: one that
// an update is not replacing, of a container that has not exited terminally.
func (e *Engine) resizesLiveLocked(s *slot) bool {
	return s.inst != nil && !e.updLocked().replacing[s.inst.id] && !s.rec().Terminal
}

// applyRestartLocked writes a change that restarts the container into s's definition: a
// running (or starting) instance is replaced by one of the new definition (UPD-007, UPD-011)
// and update gen waits for it; a waiting container uses it at its next start (UPD-012); one
// that exited terminally stays so (UPD-013).
func (e *Engine) applyRestartLocked(rc context.Context, s *slot, nc *v1alpha1.Container, cc validation.ContainerChange, images map[string]string, gen int64) {
	u := e.updLocked()
	r := s.rec()
	e.applyDefinitionLocked(s, nc, cc, images)
	if r.Terminal {
		return // UPD-013: an exited container does not come back
	}
	if s.inst == nil && !s.creating {
		return // waiting: its next start uses the new definition (UPD-012)
	}
	u.pending[s.name] = gen
	r.UpdatePending = gen
	if inst := s.inst; inst != nil && !u.replacing[inst.id] {
		u.replacing[inst.id] = true
		go e.replaceInstance(rc, s, inst, gen)
	}
	go e.awaitRestart(rc, s, u.version[s.name], gen)
}

// rearmDeadlineLocked makes a changed activeDeadlineSeconds take effect at once, counted from
// status.startedAt (UPD-014).
func (e *Engine) rearmDeadlineLocked(rc context.Context, ch validation.Changes) {
	ps := e.st.Pod.Status
	p := &e.st.Pod
	if ch.ActiveDeadlineSeconds && ps.StartedAt != nil && p.Spec.ActiveDeadlineSeconds != nil {
		if e.deadlineArmed {
			from := *ps.StartedAt
			go e.deadline(rc, activeDeadline(from, *p.Spec.ActiveDeadlineSeconds))
		} else if e.runCtx != nil {
			e.armDeadlineLocked()
		}
	}
}

// resizeLive applies the resizes of update gen to the running instances, outside the lock
// (UPD-010). An instance whose OCI runtime refuses the new limits (a memory limit below its
// usage) keeps running with its old ones: a restart in place of the resize would break
// UPD-010. The change has then not taken effect (UPD-006), so status.observedGeneration stays
// below the generation until the container's next instance, created with the new limits, runs
// (or it ends for good).
func (e *Engine) resizeLive(ctx, rc context.Context, gen int64, resizes []resize) {
	for _, rz := range resizes {
		err := errors.New("the backend cannot resize instances")
		if rs, ok := e.be.(Resizer); ok {
			err = rs.UpdateResources(context.WithoutCancel(ctx), rz.id, rz.res)
		}
		e.mu.Lock()
		u := e.updLocked()
		u.resizing[gen]--
		var evs []*runtimev1.Event
		if err != nil {
			e.logf("resize %s: %v; it keeps its limits until its next instance", rz.id, err)
			if inst := rz.s.inst; inst != nil && inst.id == rz.id && !u.replacing[inst.id] && !e.terminating && !rz.s.rec().Terminal {
				u.pending[rz.s.name] = gen
				go e.awaitRestart(rc, rz.s, u.version[rz.s.name], gen)
				ev := e.instEvent(EventResizeFailed, rz.s, inst, "", fmt.Sprintf(
					"generation %d: the OCI runtime refused the new resources of the running instance, which keeps its limits until its next instance: %v", gen, err))
				evs = append(evs, ev)
			}
		}
		e.commitLocked(append(evs, e.observeLocked()...)...)
		e.mu.Unlock()
	}
}

// resizeSupportedLocked refuses, before anything is accepted, an update that needs a live
// resize of a running instance when the backend cannot resize at all: restarting the
// container instead would break UPD-010, so the runtime says it cannot (ErrUpdateUnsupported,
// the contract's Failed) and the pod stays as it was. A resize of a container that is waiting
// or has exited needs no live resize: its next instance, if any, is created with the new limits.
func (e *Engine) resizeSupportedLocked(ctx context.Context, ch validation.Changes) error {
	for _, cc := range ch.Containers {
		if cc.Effect != validation.EffectResize || !e.resizesLiveLocked(e.byName[cc.Name]) {
			continue
		}
		why := errors.New("the backend cannot resize instances")
		if rs, ok := e.be.(Resizer); ok {
			why = rs.ResizeSupported(ctx)
		}
		if why == nil {
			return nil
		}
		return fmt.Errorf("%w: the resources of running container %s cannot be changed in place (%s): %v; "+
			"a resizePolicy of RestartContainer for the changed resources restarts it with them instead",
			ErrUpdateUnsupported, cc.Name, spec.UPD010, why)
	}
	return nil
}

func errorsOnly(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for _, x := range errs {
		if x.Severity() != spec.Warning {
			out = append(out, x)
		}
	}
	return out
}

// updateSummary describes an update's changes for its event message.
func updateSummary(ch validation.Changes) string {
	var parts []string
	if ch.Labels {
		parts = append(parts, "labels")
	}
	if ch.Annotations {
		parts = append(parts, "annotations")
	}
	if ch.ActiveDeadlineSeconds {
		parts = append(parts, "activeDeadlineSeconds")
	}
	if ch.TerminationGracePeriodSeconds {
		parts = append(parts, "terminationGracePeriodSeconds")
	}
	for _, cc := range ch.Containers {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", cc.Name, strings.Join(cc.Fields, ","), cc.Effect))
	}
	return strings.Join(parts, "; ")
}

// applyDefinitionLocked writes a container's changed mutable fields into the slot's
// effective definition and bumps its spec version. Fields are replaced, never modified in
// place, so a copy taken earlier (an instance being created) stays intact.
func (e *Engine) applyDefinitionLocked(s *slot, nc *v1alpha1.Container, cc validation.ContainerChange, images map[string]string) {
	u := e.updLocked()
	for _, f := range cc.Fields {
		switch f {
		case "image":
			s.c.Image = nc.Image
			u.images[s.name] = images[s.name]
		case "command":
			s.c.Command = slices.Clone(nc.Command)
		case "args":
			s.c.Args = slices.Clone(nc.Args)
		case "env":
			s.c.Env = slices.Clone(nc.Env)
		case "resources":
			if nc.Resources == nil {
				s.c.Resources = nil
			} else {
				r := *nc.Resources
				r.Limits = maps.Clone(r.Limits)
				r.Requests = maps.Clone(r.Requests)
				s.c.Resources = &r
			}
		}
	}
	u.version[s.name]++
	if s.inst == nil && !s.creating {
		s.status().Image = s.c.Image
	}
}

// replaceInstance replaces a live instance after an update (UPD-007): once it runs, its stop
// signal, then SIGKILL after terminationGracePeriodSeconds; no preStop hook (HOOK-011). The
// slot's goroutine starts the new instance at once when it sees the exit (updateRestartLocked).
// A stop sequence that begins meanwhile takes over.
func (e *Engine) replaceInstance(ctx context.Context, s *slot, inst *instance, gen int64) {
	if !e.waitUntil(ctx, func() bool { return s.inst != inst || s.rec().Running || e.terminating }) {
		return
	}
	why := fmt.Sprintf("replaced by update (generation %d)", gen)
	if !e.signalInstance(ctx, s, inst, stopSignal(s.c), why) {
		return
	}
	e.mu.Lock()
	grace := secondsOf(e.gracePeriod())
	e.mu.Unlock()
	if !e.sleep(ctx, grace, func() bool { return s.inst != inst || e.terminating }) {
		return
	}
	e.signalInstance(ctx, s, inst, syscall.SIGKILL, why+": grace period over")
}

// signalInstance sends sig to inst if it is still the slot's live instance and the pod is not
// stopping, recording SignalSent; it reports whether it sent it.
func (e *Engine) signalInstance(ctx context.Context, s *slot, inst *instance, sig syscall.Signal, why string) bool {
	e.mu.Lock()
	terminating := e.terminating
	if s.inst != inst || terminating {
		e.mu.Unlock()
		return false
	}
	n := int32(sig)
	ev := e.instEvent(runtimev1.EventSignalSent, s, inst, "", why)
	ev.Signal = &v1alpha1.Signal{Name: v1alpha1.SignalName(n), Number: n}
	e.commitLocked(ev)
	e.mu.Unlock()
	if err := e.sendSignal(context.WithoutCancel(ctx), inst, sig); err != nil && err != errProcessGone {
		e.logf("signal %s %s: %v", inst.id, ev.Signal.Name, err)
	}
	return true
}

// awaitRestart waits until the restart of s that update gen asked for took effect — an
// instance of spec version ver (or later) runs, or the container will not run again — and
// then lets status.observedGeneration advance.
func (e *Engine) awaitRestart(ctx context.Context, s *slot, ver, gen int64) {
	u := e.updLocked()
	done := func() bool {
		if u.pending[s.name] != gen || e.st.Pod.Status.FinishedAt != nil {
			return true
		}
		r := s.rec()
		if r.Terminal || e.noRestartLocked(s) {
			return true
		}
		return s.inst != nil && r.Running && u.instVersion[s.inst.id] >= ver
	}
	if !e.waitUntil(ctx, done) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if u.pending[s.name] == gen {
		delete(u.pending, s.name)
		s.rec().UpdatePending = 0
		e.commitLocked(e.observeLocked()...)
	}
}

// resumeUpdatesLocked finishes, after a supervisor loss, the update restarts the previous
// supervisor had not finished: the adopted instance runs an older definition than the stored
// manifest (the slots' definitions), so it is replaced as UPD-007 says, and
// status.observedGeneration follows once the new instances run.
func (e *Engine) resumeUpdatesLocked() {
	if e.st.Pod.Status.ObservedGeneration >= e.st.Pod.Metadata.Generation {
		return
	}
	u := e.updLocked()
	rc := e.runCtx
	for _, s := range e.slots {
		r := s.rec()
		g := r.UpdatePending
		if g == 0 {
			continue
		}
		u.version[s.name]++ // newer than any adopted instance (version 0)
		u.pending[s.name] = g
		if inst := s.inst; inst != nil && !r.Terminal {
			u.replacing[inst.id] = true
			go e.replaceInstance(rc, s, inst, g)
		}
		go e.awaitRestart(rc, s, u.version[s.name], g)
	}
	e.commitLocked(e.observeLocked()...)
}

// replacedLocked is called when an instance ended (afterExit, before its end is judged): it
// reports whether an update was replacing it. If the pod began to stop meanwhile, the end is
// judged as a stop (the container is not restarted) and it reports false.
func (e *Engine) replacedLocked(s *slot, inst *instance) bool {
	if inst == nil || e.upd == nil || !e.upd.replacing[inst.id] {
		return false
	}
	delete(e.upd.replacing, inst.id)
	if e.noRestartLocked(s) {
		if r := s.rec(); r.StopReason == "" {
			r.StopReason = e.instanceStopReasonLocked()
		}
		return false
	}
	return true
}

// restartReplacedLocked records the end of an instance an update replaced and lets the slot
// start the new instance at once: the end does not count for the restart policy, the
// back-off, the exit policy or the pod result (UPD-008). exited is its ContainerExited event.
func (e *Engine) restartReplacedLocked(s *slot, term *v1alpha1.ContainerStateTerminated, exited *runtimev1.Event) {
	st := s.status()
	r := s.rec()
	r.StopReason = ""
	r.NextStart = nil
	st.LastState = v1alpha1.ContainerState{Terminated: term}
	st.State = v1alpha1.ContainerState{Waiting: &v1alpha1.ContainerStateWaiting{Reason: ReasonContainerCreating,
		Message: "replaced by an update; the new instance starts at once"}}
	rev := e.instEvent(runtimev1.EventContainerRestarting, s, nil, "", "replaced by an update: no back-off")
	n := st.RestartCount
	rev.RestartCount = &n
	rev.ContainerID = term.ContainerID
	e.commitLocked(exited, rev)
}

// observeLocked advances status.observedGeneration to the newest generation whose changes
// all took effect (UPD-006) and returns one UpdateApplied event per generation it passes.
func (e *Engine) observeLocked() []*runtimev1.Event {
	ps := e.st.Pod.Status
	obs := e.st.Pod.Metadata.Generation
	if u := e.upd; u != nil {
		for _, g := range u.pending {
			obs = min(obs, g-1)
		}
		for g, n := range u.resizing {
			if n > 0 {
				obs = min(obs, g-1)
			} else {
				delete(u.resizing, g)
			}
		}
	}
	var evs []*runtimev1.Event
	for g := ps.ObservedGeneration + 1; g <= obs; g++ {
		ev := e.event(runtimev1.EventUpdateApplied, nil, "", fmt.Sprintf("generation %d took effect", g))
		ev.Generation = g
		evs = append(evs, ev)
	}
	if obs > ps.ObservedGeneration {
		ps.ObservedGeneration = obs
	}
	return evs
}
