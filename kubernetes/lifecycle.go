package kubernetes

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/validation/field"
)

// kubeletStopExtension is the time the kubelet still gives a container after its preStop hook
// used up the grace period: the stop signal is sent then, and SIGKILL this long after
// (pod termination sequence, "Termination of Pods").
const kubeletStopExtension = 2

// lifecycleAdvice reports what a cluster accepts but runs differently from what the manifest
// seems to mean: warnings (KUBE-014 to KUBE-016).
func lifecycleAdvice(t *Template) field.ErrorList {
	var errs field.ErrorList
	grace := gracePeriod(t.Spec)
	each(t, func(c *Container, kind containerKind, p *field.Path) {
		if kind == kindInit || kind == kindEphemeral || c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
			return
		}
		if s := c.Lifecycle.PreStop.Sleep; s != nil && grace > 0 && s.Seconds == grace {
			errs = append(errs, field.Invalid(rulePreStopBudget, p.Child("lifecycle", "preStop", "sleep", "seconds"), s.Seconds,
				fmt.Sprintf("the preStop sleep takes the whole terminationGracePeriodSeconds (%d s): the stop signal comes only after it, with %d s left before SIGKILL; sleep less or raise the grace period",
					grace, kubeletStopExtension)))
		}
	})
	errs = append(errs, sidecarsWithoutStartupProbe(t)...)
	errs = append(errs, duplicatePorts(t)...)
	if t.RunsToCompletion {
		errs = append(errs, jobNeverFinishes(t)...)
	}
	return errs
}

// sidecarsWithoutStartupProbe warns about a sidecar that later init containers follow while it
// has no startupProbe: the kubelet starts the next init container as soon as the sidecar's
// process (and its postStart hook) has started, so whatever the sidecar serves may not be there
// yet (KEP-753).
func sidecarsWithoutStartupProbe(t *Template) field.ErrorList {
	var errs field.ErrorList
	inits := t.Spec.InitContainers
	for i := range inits {
		c := &inits[i]
		if !isSidecar(c) || c.StartupProbe != nil || i == len(inits)-1 {
			continue
		}
		var later []string
		for j := i + 1; j < len(inits); j++ {
			later = append(later, inits[j].Name)
		}
		errs = append(errs, field.Invalid(ruleSidecarStartup, t.Path.Child("initContainers").Index(i).Child("restartPolicy"), "Always",
			fmt.Sprintf("sidecar %q has no startupProbe, so the init containers after it (%s) start as soon as its process starts, not when it is ready; give it a startupProbe",
				c.Name, strings.Join(later, ", "))))
	}
	return errs
}

// jobNeverFinishes warns about a Job's container that keeps its pod from completing: a regular
// container whose own restartPolicy is Always is restarted whenever it exits, and only sidecars
// (init containers with restartPolicy Always) are stopped when the regular containers are done
// (KEP-753, KEP-5307), so the pod, and the Job, never finish.
func jobNeverFinishes(t *Template) field.ErrorList {
	var errs field.ErrorList
	for i := range t.Spec.Containers {
		c := &t.Spec.Containers[i]
		if c.RestartPolicy == nil || *c.RestartPolicy != "Always" {
			continue
		}
		errs = append(errs, field.Invalid(ruleJobNeverFinish, t.Path.Child("containers").Index(i).Child("restartPolicy"), "Always",
			fmt.Sprintf("container %q of a %s pod is restarted whenever it exits, so the pod never completes; run it as a sidecar (an init container with restartPolicy Always), which is stopped once the other containers are done",
				c.Name, t.Owner)))
	}
	return errs
}
