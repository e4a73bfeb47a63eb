package notify

import "podspec.dev/podspec/api/v1alpha1"

// Helpers of the mutant builds (package reference/mutant). They are called only from branches
// guarded by a mutant switch; in a normal build every switch is false, the branches are
// dropped by the compiler, and these helpers by the linker.

// mutantExistingTargets counts the targets that name a pod (a UID): the mutant
// targets_without_not_found leaves out the PodNotFound records of names in spec.pods.
func mutantExistingTargets(all map[string]*target) int32 {
	var n int32
	for _, t := range all {
		if t.uid != "" {
			n++
		}
	}
	return n
}

// mutantSucceededWins is the phase of a pod record in the mutant record_phase_succeeded_wins:
// Succeeded if a delivery succeeded, else Failed if one failed, else Skipped.
func mutantSucceededWins(ds []v1alpha1.ContainerDelivery) v1alpha1.NotificationPhase {
	ph := v1alpha1.NotificationSkipped
	for _, d := range ds {
		switch d.Phase {
		case v1alpha1.NotificationSucceeded:
			return v1alpha1.NotificationSucceeded
		case v1alpha1.NotificationFailed:
			ph = v1alpha1.NotificationFailed
		}
	}
	return ph
}

// mutantAnyLabel reports whether labels hold at least one of the pairs of want: the matchLabels
// of the mutant selector_any_label.
func mutantAnyLabel(want, labels map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; ok && got == v {
			return true
		}
	}
	return false
}

// mutantTargetsLaterNow is TargetsLater from the pod's current labels, not those it was created
// with: the mutant later_pods_redecided decides a pod again at every scan.
func mutantTargetsLaterNow(o *Object, pod PodInfo) bool {
	pod.CreationLabels = pod.Labels
	return TargetsLater(o, pod)
}
