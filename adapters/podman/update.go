package podman

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// The update verb (profile update, docs/runtime-interface.md 4.10, docs/spec/update.md) on
// podman 4.3.1, whose only in-place change of a container is `podman update`: new cgroup limits
// for a running container. The adapter translates what podman can do and refuses the rest
// (Failed, naming what podman lacks); it never replaces a container itself.
//
// Measured on podman 4.3.1 (runc, cgroup v1, cgroupfs):
//   - `podman update --memory N --cpus F` of a running container writes the cgroup at once (the
//     process reads the new memory.limit_in_bytes and cpu.cfs_quota_us), but keeps the limits
//     it was created with in its configuration (`podman inspect` HostConfig): the next start
//     of the same container (a restart by its restart policy) runs with the old limits;
//   - it has no --pids-limit (podman 4.3 cannot change a pids limit);
//   - it cannot remove a limit (`--memory -1` is refused, `--cpus 0` and `--cpu-quota -1`
//     succeed and leave the quota as it was);
//   - of a container that is created but not started it fails (`runc update`: container does
//     not exist): a container waiting to start cannot be given new limits;
//   - image, command, args and env are fixed at `podman create`: podman has no way to change
//     them, or to replace one container of a pod by a new one with the pod's lifecycle.

// updateApplied is an accepted update that changed the manifest: the generation it made and
// when its effects were in place (its UpdateApplied event).
type updateApplied struct {
	Time       time.Time `json:"time"`
	Generation int64     `json:"generation"`
}

// generation is the pod's metadata.generation: 1 at creation, +1 per accepted change.
func (r *podRecord) generation() int64 { return 1 + int64(len(r.Updates)) }

// Manifest is the pod's current manifest as the adapter was asked for it (defaulted), the base
// an update is validated against.
func (a *Adapter) Manifest(name string) (*v1alpha1.Pod, error) {
	rec, err := a.load(name)
	if err != nil {
		return nil, err
	}
	return rec.pod(), nil
}

func (r *podRecord) pod() *v1alpha1.Pod {
	return &v1alpha1.Pod{TypeMeta: v1alpha1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindPod},
		Metadata: v1alpha1.ObjectMeta{Name: r.Name, Labels: r.Labels, Annotations: r.Annotations, Generation: r.generation()},
		Spec:     r.Spec}
}

// lock serialises the verbs that rewrite a pod's record (update, stop) on that pod.
func (a *Adapter) lock(name string) (func(), error) { return a.flock(name, syscall.LOCK_EX) }

// tryLock is lock without waiting: ok is false when another holder (this process included:
// flock locks belong to open files) has the lock.
func (a *Adapter) tryLock(name string) (unlock func(), ok bool) {
	unlock, err := a.flock(name, syscall.LOCK_EX|syscall.LOCK_NB)
	return unlock, err == nil
}

func (a *Adapter) flock(name string, how int) (func(), error) {
	dir := filepath.Join(a.Root, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errorf(rtv1.CodeIO, "lock pod %s: %v", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errorf(rtv1.CodeIO, "lock pod %s: %v", name, err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, errorf(rtv1.CodeIO, "lock pod %s: %v", name, err)
	}
	return func() { f.Close() }, nil
}

// Update applies an in-place update (contract 4.10) of the pod to newPod, which the caller has
// validated on its own and as an update of Manifest (InvalidManifest otherwise), defaulted. A
// terminating or terminal pod is a Conflict (UPD-004); an update that changes nothing takes no
// generation (UPD-005). Labels, annotations and terminationGracePeriodSeconds are recorded (the
// adapter's own `podman pod stop --time` takes the grace, UPD-015); a limit change of a running
// container is `podman update`; a change podman cannot make is refused with Failed and
// changes nothing (see planUpdate). It returns the status at acceptance, once the changes took
// effect: `podman update` returns once the cgroup is written, so UpdateApplied and
// observedGeneration follow it (UPD-006).
func (a *Adapter) Update(ctx context.Context, newPod *v1alpha1.Pod) (*v1alpha1.PodStatus, error) {
	name := newPod.Metadata.Name
	unlock, err := a.lock(name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := a.load(name)
	if err != nil {
		return nil, err
	}
	st, err := a.Status(ctx, name)
	if err != nil {
		return nil, err
	}
	if st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed {
		return nil, errorf(rtv1.CodeConflict, "pod %s is %s: a terminal pod cannot be updated", name, st.Phase)
	}
	if len(rec.Stops) > 0 {
		return nil, errorf(rtv1.CodeConflict, "pod %s is terminating: it cannot be updated", name)
	}
	changes := validation.MutableChanges(newPod, rec.pod())
	if changes.Empty() {
		return st, nil
	}
	ins, err := a.inspect(ctx, rec)
	if err != nil {
		return nil, err
	}
	states := map[string]ctrState{}
	start := a.startOutcome(rec)
	for _, c := range rec.Containers {
		states[c.Name] = stateOf(c.Kind, podmanRestart(c.Kind, rec.Spec.RestartPolicy, restartOf(&rec.Spec, c)), ins[c.ID], start.done)
	}
	calls, refused := planUpdate(rec.pod(), newPod, changes, states)
	if len(refused) > 0 {
		return nil, errorf(rtv1.CodeFailed, "podman cannot apply this update as podspec defines it: %s", strings.Join(refused, "; "))
	}
	ids := map[string]string{}
	for _, c := range rec.Containers {
		ids[c.Name] = c.ID
	}
	for i, call := range calls {
		if _, err := a.run(ctx, append(append([]string{"update"}, call.args...), ids[call.container])...); err != nil {
			// Put back what the earlier calls changed, so that a failed update changes nothing,
			// and say what could not be put back.
			msg := fmt.Sprintf("container %s: %v", call.container, err)
			for _, done := range slices.Backward(calls[:i]) {
				if len(done.revert) < len(done.args) {
					msg += fmt.Sprintf("; container %s keeps a new limit it had none of before (podman cannot remove a limit)", done.container)
				}
				if len(done.revert) == 0 {
					continue
				}
				if _, rerr := a.run(context.WithoutCancel(ctx), append(append([]string{"update"}, done.revert...), ids[done.container])...); rerr != nil {
					msg += fmt.Sprintf("; putting back container %s's limits failed: %v", done.container, rerr)
				}
			}
			return nil, errorf(rtv1.CodeFailed, "%s", msg)
		}
	}
	rec.Spec, rec.Labels, rec.Annotations = newPod.Spec, newPod.Metadata.Labels, newPod.Metadata.Annotations
	rec.Updates = append(rec.Updates, updateApplied{Time: time.Now().UTC(), Generation: rec.generation() + 1})
	if err := a.save(rec); err != nil {
		return nil, err
	}
	return a.Status(ctx, name)
}

// restartOf is the container's own restart policy in spec.
func restartOf(spec *v1alpha1.PodSpec, c containerRecord) *v1alpha1.RestartPolicy {
	list := spec.Containers
	if c.Kind == "init" {
		list = spec.InitContainers
	}
	for i := range list {
		if list[i].Name == c.Name {
			return list[i].RestartPolicy
		}
	}
	return nil
}

// ctrState is what an update needs to know of a container's current instance.
type ctrState int

const (
	// ctrWaiting: created and not started yet, or exited and about to be restarted by podman.
	ctrWaiting ctrState = iota
	// ctrRunning: its process runs.
	ctrRunning
	// ctrDone: an init container that has started, or a main container that ended for good
	// (its restart policy does not restart it, or podman could not start it): a change has no
	// effect on it (docs/spec/update.md, UPD-013).
	ctrDone
)

// stateOf classifies a container from podman's inspect (nil: gone), its podman --restart and
// whether the pod's `podman pod start` has returned (after it, podman starts no container that
// it left created).
func stateOf(kind, restart string, in *inspected, podStarted bool) ctrState {
	switch {
	case in == nil:
		return ctrWaiting
	case in.State.Running:
		if kind == "init" {
			return ctrDone
		}
		return ctrRunning
	case in.State.StartedAt.IsZero() && in.State.Status != "exited" && in.State.Status != "stopped":
		if podStarted {
			return ctrDone // podman could not start it (StartError)
		}
		return ctrWaiting
	case kind == "init":
		return ctrDone
	case restart == "always", restart == "on-failure" && in.State.ExitCode != 0:
		return ctrWaiting
	}
	return ctrDone
}

// podmanCall is one `podman update` of a container: its flags, and those that put back the
// limits it had.
type podmanCall struct {
	container    string
	args, revert []string
}

// planUpdate turns the accepted changes of an update from oldPod to newPod into `podman update`
// calls, given each container's state, or lists what podman cannot do of it. Labels,
// annotations and the grace period need no call. A container that has started for the last
// time (ctrDone) takes no call: the change has no effect on it. Resource requests need none
// either: a runtime applies limits only (RES-002), and the adapter maps no request at creation.
func planUpdate(oldPod, newPod *v1alpha1.Pod, changes validation.Changes, states map[string]ctrState) ([]podmanCall, []string) {
	var calls []podmanCall
	refused := Unsupported(&newPod.Spec)
	for _, cc := range changes.Containers {
		oldC, newC := findContainer(&oldPod.Spec, cc), findContainer(&newPod.Spec, cc)
		if oldC == nil || newC == nil {
			continue // the validator refuses a changed set of containers (UPD-001)
		}
		what := fmt.Sprintf("%s container %s", cc.Kind, cc.Name)
		definition := slices.ContainsFunc(cc.Fields, func(f string) bool { return f != "resources" })
		limits := changedLimits(oldC.Resources, newC.Resources)
		if !definition && len(limits) == 0 {
			continue // requests only
		}
		switch states[cc.Name] {
		case ctrDone:
			continue
		case ctrWaiting:
			refused = append(refused, what+": it is waiting to start or to restart, and podman can change neither the definition of a container that is not running (image, command, args and env are fixed at podman create) nor its limits (podman update needs a running container; "+spec.UPD012+")")
			continue
		}
		if definition {
			refused = append(refused, fmt.Sprintf("%s: a changed %s needs a new instance, and podman cannot replace a container of a pod in place (podman update changes cgroup limits only; %s)", what, strings.Join(slices.DeleteFunc(slices.Clone(cc.Fields), func(f string) bool { return f == "resources" }), ", "), spec.UPD007))
			continue
		}
		if cc.Effect == validation.EffectRestart {
			refused = append(refused, what+": resizePolicy RestartContainer needs a new instance, and podman cannot restart a container with new limits ("+spec.UPD011+")")
			continue
		}
		if cc.Kind == validation.KindMain && restartsAgain(newPod.Spec.RestartPolicy, newC.RestartPolicy) {
			refused = append(refused, what+": podman update changes the running instance only, and podman would restart the container with the limits it was created with (its restart policy may restart it)")
			continue
		}
		call := podmanCall{container: cc.Name}
		for _, r := range limits {
			if r == v1alpha1.ResourcePIDs {
				refused = append(refused, what+": podman 4.3's update has no --pids-limit, so a pids limit cannot change")
				continue
			}
			args, err := limitArgs(newC.Resources, r)
			if err == nil && args == nil {
				err = fmt.Errorf("podman update cannot remove a %s limit (--memory takes no -1, --cpus 0 leaves the quota)", r)
			}
			if err != nil {
				refused = append(refused, fmt.Sprintf("%s: %v", what, err))
				continue
			}
			// A limit set where there was none cannot be put back (see above): no revert flag.
			revert, _ := limitArgs(oldC.Resources, r)
			call.args, call.revert = append(call.args, args...), append(call.revert, revert...)
		}
		if len(call.args) > 0 {
			calls = append(calls, call)
		}
	}
	if len(refused) > 0 {
		return nil, refused
	}
	return calls, nil
}

// restartsAgain reports whether podman may restart a main container with this restart policy
// (its own, else the pod's).
func restartsAgain(pod v1alpha1.RestartPolicy, own *v1alpha1.RestartPolicy) bool {
	return podmanRestart("main", pod, own) != "no"
}

func findContainer(spec *v1alpha1.PodSpec, cc validation.ContainerChange) *v1alpha1.Container {
	list := spec.Containers
	if cc.Kind != validation.KindMain {
		list = spec.InitContainers
	}
	for i := range list {
		if list[i].Name == cc.Name {
			return &list[i]
		}
	}
	return nil
}

// changedLimits lists the resources whose limit differs in value between o and n (cpu, memory,
// pids, in that order).
func changedLimits(o, n *v1alpha1.ResourceRequirements) []v1alpha1.ResourceName {
	var out []v1alpha1.ResourceName
	for _, r := range []v1alpha1.ResourceName{v1alpha1.ResourceCPU, v1alpha1.ResourceMemory, v1alpha1.ResourcePIDs} {
		a, errA := limitArgs(o, r)
		b, errB := limitArgs(n, r)
		if errA != nil || errB != nil || !slices.Equal(a, b) {
			out = append(out, r)
		}
	}
	return out
}

// limitArgs is the podman flag that sets resource r's limit from res (nil when res sets none),
// as `podman create` and `podman update` take it. podman 4.3's update has no --pids-limit.
func limitArgs(res *v1alpha1.ResourceRequirements, r v1alpha1.ResourceName) ([]string, error) {
	if res == nil {
		return nil, nil
	}
	q, ok := res.Limits[r]
	if !ok {
		return nil, nil
	}
	switch r {
	case v1alpha1.ResourceMemory:
		b, err := q.Bytes()
		if err != nil {
			return nil, fmt.Errorf("memory limit: %w", err)
		}
		return []string{"--memory", fmt.Sprint(b)}, nil
	case v1alpha1.ResourceCPU:
		m, err := q.MilliCPU()
		if err != nil {
			return nil, fmt.Errorf("cpu limit: %w", err)
		}
		return []string{"--cpus", fmt.Sprintf("%.3f", float64(m)/1000)}, nil
	case v1alpha1.ResourcePIDs:
		n, err := q.Count()
		if err != nil {
			return nil, fmt.Errorf("pids limit: %w", err)
		}
		return []string{"--pids-limit", fmt.Sprint(n)}, nil
	}
	return nil, fmt.Errorf("resource %s: podman has no limit of that name", r)
}
