package validation

import (
	"maps"
	"slices"

	"podspec.dev/podspec/api/v1alpha1"
)

// Effect is what an accepted in-place update does to one container.
type Effect string

// Effects of an update on a container.
const (
	// EffectRestart replaces the container's current instance with a new one built from the
	// updated definition. Only this container restarts; the pod's volumes and the other
	// containers' processes are untouched.
	EffectRestart Effect = "Restart"
	// EffectResize applies the changed resources to the running instance, without a restart.
	EffectResize Effect = "Resize"
	// EffectNextRun applies to a regular init container: the change is used only if the
	// container has not started yet. A started init container is never re-run, so a pod past
	// its init phase is not affected (docs/spec/update.md).
	EffectNextRun Effect = "NextRun"
)

// ContainerChange describes the accepted changes to one init, sidecar or main container.
type ContainerChange struct {
	// Kind is init, sidecar or main.
	Kind ContainerKind
	// Index is the container's index in spec.initContainers (init, sidecar) or spec.containers.
	Index int
	// Name is the container's name.
	Name string
	// Fields lists the changed mutable fields, in this order: image, command, args, env,
	// resources.
	Fields []string
	// Resources lists, sorted, the resources whose limit or request changed in value.
	Resources []v1alpha1.ResourceName
	// Effect is what the runtime must do to apply the change.
	Effect Effect
}

// Changes describes what an accepted in-place update changes. The zero value means no change.
type Changes struct {
	// Labels and Annotations report changed metadata (no container is affected).
	Labels, Annotations bool
	// ActiveDeadlineSeconds reports a deadline that was set or decreased.
	ActiveDeadlineSeconds bool
	// TerminationGracePeriodSeconds reports a changed grace budget (used by the next stop).
	TerminationGracePeriodSeconds bool
	// Containers lists the changed containers: init containers and sidecars first, in list
	// order, then main containers in list order.
	Containers []ContainerChange
}

// Empty reports whether the update changes nothing (the runtime need not bump the generation).
func (c Changes) Empty() bool {
	return !c.Labels && !c.Annotations && !c.ActiveDeadlineSeconds && !c.TerminationGracePeriodSeconds && len(c.Containers) == 0
}

// Restarts returns the names of the containers whose instance the update replaces.
func (c Changes) Restarts() []string {
	var names []string
	for _, cc := range c.Containers {
		if cc.Effect == EffectRestart {
			names = append(names, cc.Name)
		}
	}
	return names
}

// MutableChanges describes what an update from oldPod to newPod changes among the fields an
// in-place update may change. Call it after ValidatePodUpdate accepted the update, on defaulted
// pods; it ignores immutable fields, and it matches containers by name within their list, so
// containers present in only one of the pods are ignored too.
//
// A main container or sidecar restarts when its image, command, args or env change, or when a
// resource whose resizePolicy is RestartContainer changes; a change of resources only is applied
// live. Any change to a regular init container has effect only if it has not started yet.
func MutableChanges(newPod, oldPod *v1alpha1.Pod) Changes {
	var ch Changes
	if newPod == nil || oldPod == nil {
		return ch
	}
	ch.Labels = !maps.Equal(oldPod.Metadata.Labels, newPod.Metadata.Labels)
	ch.Annotations = !maps.Equal(oldPod.Metadata.Annotations, newPod.Metadata.Annotations)
	ch.ActiveDeadlineSeconds = !equalPtr(oldPod.Spec.ActiveDeadlineSeconds, newPod.Spec.ActiveDeadlineSeconds)
	ch.TerminationGracePeriodSeconds = gracePeriod(&oldPod.Spec) != gracePeriod(&newPod.Spec)
	ch.Containers = append(ch.Containers, containerChanges(oldPod.Spec.InitContainers, newPod.Spec.InitContainers, true)...)
	ch.Containers = append(ch.Containers, containerChanges(oldPod.Spec.Containers, newPod.Spec.Containers, false)...)
	return ch
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// containerChanges compares the containers of one list, matched by name.
func containerChanges(oldCs, newCs []v1alpha1.Container, isInit bool) []ContainerChange {
	var out []ContainerChange
	for i := range newCs {
		n := &newCs[i]
		j := slices.IndexFunc(oldCs, func(c v1alpha1.Container) bool { return c.Name == n.Name })
		if j < 0 {
			continue
		}
		o := &oldCs[j]
		cc := ContainerChange{Kind: KindMain, Index: i, Name: n.Name}
		if isInit {
			cc.Kind = initKind(n)
		}
		restart := false
		if o.Image != n.Image {
			cc.Fields, restart = append(cc.Fields, "image"), true
		}
		if !slices.Equal(o.Command, n.Command) {
			cc.Fields, restart = append(cc.Fields, "command"), true
		}
		if !slices.Equal(o.Args, n.Args) {
			cc.Fields, restart = append(cc.Fields, "args"), true
		}
		if !slices.Equal(o.Env, n.Env) {
			cc.Fields, restart = append(cc.Fields, "env"), true
		}
		cc.Resources = changedResources(o.Resources, n.Resources)
		if len(cc.Resources) > 0 {
			cc.Fields = append(cc.Fields, "resources")
			for _, r := range cc.Resources {
				if resizeRestarts(n, r) {
					restart = true
				}
			}
		}
		if len(cc.Fields) == 0 {
			continue
		}
		switch {
		case cc.Kind == KindInit:
			cc.Effect = EffectNextRun
		case restart:
			cc.Effect = EffectRestart
		default:
			cc.Effect = EffectResize
		}
		out = append(out, cc)
	}
	return out
}

// resizeRestarts reports whether the container asked for a restart when resource r changes.
func resizeRestarts(c *v1alpha1.Container, r v1alpha1.ResourceName) bool {
	for _, rp := range c.ResizePolicy {
		if rp.ResourceName == r {
			return rp.RestartPolicy == v1alpha1.RestartContainer
		}
	}
	return false
}

// changedResources lists, sorted, the resources whose limit or request differs in value
// ("1" and "1000m" are the same cpu).
func changedResources(o, n *v1alpha1.ResourceRequirements) []v1alpha1.ResourceName {
	var oldR, newR v1alpha1.ResourceRequirements
	if o != nil {
		oldR = *o
	}
	if n != nil {
		newR = *n
	}
	changed := make(map[v1alpha1.ResourceName]bool)
	for _, pair := range [2][2]v1alpha1.ResourceList{{oldR.Limits, newR.Limits}, {oldR.Requests, newR.Requests}} {
		for _, l := range pair {
			for r := range l {
				if !sameQuantity(r, pair[0], pair[1]) {
					changed[r] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(changed))
}

// sameQuantity reports whether resource r has the same value in both lists (or is in neither).
func sameQuantity(r v1alpha1.ResourceName, a, b v1alpha1.ResourceList) bool {
	qa, okA := a[r]
	qb, okB := b[r]
	if okA != okB {
		return false
	}
	if !okA || qa == qb {
		return true
	}
	va, errA := quantityValue(r, qa)
	vb, errB := quantityValue(r, qb)
	return errA == nil && errB == nil && va == vb
}
