package model

import (
	"slices"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// rules is the model: every check, with the requirements it judges and the manifests that give
// it something to judge. A rule left out of this table is neither run nor labelled.
var rules = []rule{
	// Start.
	{ids: []string{spec.HB001, spec.HB002}, applies: func(p *v1alpha1.Pod) bool { return len(p.Spec.InitContainers) > 1 }, check: checkInitOrder, underUpdate: true},
	{ids: []string{spec.HB003}, applies: hasInit, check: checkMainsAfterInit, underUpdate: true},
	{ids: []string{spec.HB004}, applies: hasDependencies, check: checkDependencies, underUpdate: true},
	{ids: []string{spec.DEP012, spec.DEP013}, applies: hasDependencies, check: checkDependencyFailed},
	{ids: []string{spec.HB008}, check: checkInstancesOneAtATime, underUpdate: true, underLoss: true},
	{ids: []string{spec.INIT001}, applies: hasRegularInit, check: checkInitNotRerun, underUpdate: true},
	{ids: []string{spec.INIT003}, applies: hasRegularInit, check: checkInitFailureEndsPod},
	{ids: []string{spec.MAIN002}, check: checkNoMainStartWhileTerminating, underUpdate: true, underLoss: true},
	{ids: []string{spec.MAIN003}, check: checkSkippedMains, underUpdate: true},
	// Dependencies' conditions (deps.go).
	{ids: []string{spec.DEP007, spec.DEP008}, applies: hasStartGates, check: checkReadyEvents},
	{ids: []string{spec.DEP008, spec.DEP009}, check: checkReadyInFinalStatus, underUpdate: true},
	{ids: []string{spec.DEP010}, applies: hasDependencies, check: checkCompleted},
	{ids: []string{spec.DEP011}, applies: hasDependencies, check: checkRestartNotGated},
	// emptyDir volumes' content (volumes.go).
	{ids: []string{spec.VOL004}, applies: hasEmptyDir, check: checkEmptyDirsEmpty},
	{ids: []string{spec.VOL005}, applies: hasEmptyDir, check: checkEmptyDirsKept},
	{ids: []string{spec.DEFER016}, applies: func(p *v1alpha1.Pod) bool { return hasEmptyDir(p) && hasDefers(p) }, check: checkDefersSeeVolumes},
	// Restarts.
	{ids: []string{spec.RST003}, check: checkRestartPolicy},
	{ids: []string{spec.SIDE001}, applies: hasSidecar, check: checkSidecarRestarts},
	{ids: []string{spec.RST006}, check: checkRestartCount, underUpdate: true},
	{ids: []string{spec.RST008}, check: checkBackoff},
	// The pod's end.
	{ids: []string{spec.EXIT002, spec.EXIT003, spec.EXIT004, spec.EXIT005, spec.EXIT007}, check: checkExitPolicy},
	{ids: []string{spec.EXIT006, spec.EXIT020, spec.FORCE006, spec.DL002, spec.VOL016}, check: checkTerminationReason, underUpdate: true},
	{ids: []string{spec.EXIT014, spec.EXIT015, spec.EXIT016, spec.EXIT017, spec.EXIT018}, check: checkResult},
	// Exit statuses.
	{ids: []string{spec.STAT001, spec.STAT002, spec.STAT003}, check: checkExitFields, underUpdate: true},
	{ids: []string{spec.STAT006}, check: checkReasons},
	{ids: []string{spec.STAT008}, check: checkFinalStatus, underUpdate: true},
	{ids: []string{spec.STAT007}, check: checkExitOrder, underUpdate: true},
	// The stop sequence.
	{ids: []string{spec.STOP006, spec.STOP007, spec.STOP008, spec.TIME001}, check: checkStopSignals},
	{ids: []string{spec.STOP010}, check: checkBudgetEnd},
	{ids: []string{spec.DL002}, applies: func(p *v1alpha1.Pod) bool { return p.Spec.ActiveDeadlineSeconds != nil }, check: checkDeadline},
	{ids: []string{spec.HB012}, applies: hasPreStop, check: checkPreStopBeforeSignal},
	{ids: []string{spec.HB005}, applies: hasPostStart, check: checkPostStartAfterStart, underUpdate: true, underLoss: true},
	{ids: []string{spec.HB006, spec.HB007}, applies: hasGatedProbes, check: checkProbeGates, underUpdate: true},
	{ids: []string{spec.FORCE003}, check: checkForced, underUpdate: true},
	{ids: []string{spec.FORCE004}, applies: hasDefers, check: checkForcedDefersSkipped, underUpdate: true},
	{ids: []string{spec.MAIN005}, applies: func(p *v1alpha1.Pod) bool { return hasPostStart(p) || hasNotifiers(p) }, check: checkExecStepsAfterStop, underUpdate: true},
	// The stop sequence, continued (stopseq.go): dependents, later and forced requests, the
	// condition and states it leaves, the deadline and sidecars' exits.
	{ids: []string{spec.HB011}, applies: hasDependencies, check: checkDependentsStopFirst, underUpdate: true},
	{ids: []string{spec.STOP004}, check: checkTerminatingCleared, underUpdate: true, underLoss: true},
	{ids: []string{spec.STOP005}, check: checkCancelledRestarts},
	{ids: []string{spec.STOP009}, applies: hasSidecar, check: checkSidecarStopSignal, underUpdate: true},
	{ids: []string{spec.STOP011, spec.STOP012}, check: checkLaterRequests, underUpdate: true},
	{ids: []string{spec.FORCE001}, check: checkGraceZeroForced, underUpdate: true},
	{ids: []string{spec.FORCE002, spec.FORCE005}, check: checkForcedAtOnce, underUpdate: true},
	{ids: []string{spec.MAIN004}, check: checkNoMainStartAfterTerminating, underUpdate: true},
	{ids: []string{spec.DL001}, check: checkStartedAt, underUpdate: true},
	{ids: []string{spec.DL003}, applies: func(p *v1alpha1.Pod) bool { return p.Spec.ActiveDeadlineSeconds != nil }, check: checkDeadlineKeepsReason},
	{ids: []string{spec.SIDE002}, applies: hasSidecar, check: checkSidecarsNotCounted},
	// Notifier deliveries.
	{ids: []string{spec.NTF004, spec.NTF009, spec.NTF010, spec.HB017}, applies: hasNotifiers, check: checkDeliveries, underUpdate: true},
	{ids: []string{spec.NTF006, spec.NTF007, spec.NTF008, spec.NTF011, spec.NTF013}, applies: hasNotifiers, check: checkDeliveryOutcomes, underUpdate: true},
	// Notifications.
	{ids: []string{spec.NOTIF008, spec.NOTIF009, spec.NOTIF010, spec.NOTIF011, spec.NTF014}, applies: hasNotifiers, check: checkPodRecords, underUpdate: true},
	{ids: []string{spec.NOTIF009, spec.NOTIF013, spec.NOTIF014, spec.NOTIF015, spec.NOTIF016, spec.NOTIF017}, applies: hasNotifiers, check: checkNotificationStatus, underUpdate: true, underLoss: true},
	{ids: []string{spec.NOTIF006, spec.NOTIF019, spec.NOTIF020}, applies: hasNotifiers, check: checkNotificationRuns, underUpdate: true},
	// A Notification's targets (targets.go), and deliveries to different containers (crossdelivery.go).
	{ids: []string{spec.HB021}, applies: hasNotifiers, check: checkCrossContainerDeliveries, underUpdate: true},
	{ids: []string{spec.NOTIF002, spec.NOTIF003, spec.NOTIF004, spec.NOTIF005}, applies: hasNotifiers, check: checkTargets, underUpdate: true, underLoss: true},
	{ids: []string{spec.HB009, spec.HB010, spec.HB013}, applies: hasDefers, check: checkDeferOrder, underUpdate: true},
	// Defers' own outcomes.
	{ids: []string{spec.DEFER002}, applies: hasDefers, check: checkDefersRun, underUpdate: true},
	{ids: []string{spec.DEFER003}, applies: hasDefers, check: checkDeferEnv, underUpdate: true},
	{ids: []string{spec.DEFER004, spec.DEFER014}, applies: hasDefers, check: checkDeferNotRerun, underUpdate: true, underLoss: true},
	{ids: []string{spec.DEFER005}, applies: hasDefers, check: checkDeferTimeout, underUpdate: true},
	{ids: []string{spec.DEFER006}, applies: hasDefers, check: checkDeferLimit, underUpdate: true},
	{ids: []string{spec.DEFER007, spec.DEFER008, spec.DEFER017}, applies: hasRetriedDefers, check: checkDeferRetries, underUpdate: true},
	{ids: []string{spec.DEFER007, spec.DEFER009, spec.DEFER010}, applies: hasDefers, check: checkDeferFailures, underUpdate: true},
	{ids: []string{spec.DEFER007, spec.DEFER012}, applies: hasDefers, check: checkDeferCondition, underUpdate: true},
	{ids: []string{spec.DEFER011}, applies: hasDefers, check: checkDeferNoEffect, underUpdate: true},
	// Probe thresholds and what follows a failed probe or hook.
	{ids: []string{spec.HOOK009, spec.HOOK010, spec.HOOK013}, applies: hasProbes, check: checkThresholds},
	{ids: []string{spec.HOOK009, spec.HOOK010}, applies: hasHealthProbes, check: checkProbeKills},
	{ids: []string{spec.HOOK008}, applies: hasPostStart, check: checkPostStartFailure},
	{ids: []string{spec.HOOK011}, applies: hasPreStop, check: checkPreStopOnlyInStop, underUpdate: true},
	{ids: []string{spec.HOOK004}, applies: hasSleepHook, check: checkSleepHooks, underUpdate: true},
	{ids: []string{spec.HOOK003}, applies: hasHooksWithEnv, check: checkExecEnv, underUpdate: true, underLoss: true},
	{ids: []string{spec.HB014, spec.HB015}, applies: hasSidecar, check: checkSidecarStopOrder, underUpdate: true},
	{ids: []string{spec.HB016}, check: checkAllEndedBeforeFinish, underUpdate: true},
	// What each instance sees (view.go): judged on the reports its workloads send.
	{ids: []string{spec.SEC001, spec.SEC002}, applies: anyReport, check: checkPrivileges, underLoss: true},
	{ids: []string{spec.SEC003, spec.SEC004}, applies: anyReport, check: checkProcPaths, underLoss: true},
	{ids: []string{spec.SEC008}, applies: anyReport, check: checkSharedNamespaces},
	{ids: []string{spec.SEC009}, applies: anyReport, check: checkLoopbackOnly, underLoss: true},
	{ids: []string{spec.SEC021}, applies: reportsWith(func(v outlook) bool { return v.sc != nil && (v.sc.RunAsUser != nil || v.sc.RunAsGroup != nil) }), check: checkRunAs, underLoss: true},
	{ids: []string{spec.SEC023}, applies: reportsWith(func(v outlook) bool { return readOnlyRoot(v.sc) }), check: checkReadOnlyRoot, underLoss: true},
	{ids: []string{spec.SEC024}, applies: reportsWith(func(v outlook) bool { return v.sc != nil && v.sc.Capabilities != nil }), check: checkCapabilityChanges, underLoss: true},
	{ids: []string{spec.VOL006}, applies: reportsWith(func(v outlook) bool { return len(v.memoryMounts()) > 0 }), check: checkMemoryVolumes, underLoss: true},
	{ids: []string{spec.VOL009}, applies: reportsWith(func(v outlook) bool {
		return slices.ContainsFunc(v.mounts, func(m v1alpha1.VolumeMount) bool { return m.ReadOnly })
	}), check: checkReadOnlyMounts, underLoss: true},
	{ids: []string{spec.RES002}, applies: reportsWith(func(v outlook) bool { return v.res != nil && len(v.res.Limits) > 0 }), check: checkLimits, underLoss: true},
	{ids: []string{spec.RST004, spec.IMG009}, applies: reportsWith(outlook.restarts), check: checkNewInstances},
	{ids: []string{spec.RES003}, applies: reportsWith(func(v outlook) bool { return v.res == nil || v.res.Limits[v1alpha1.ResourcePIDs] == "" }), check: checkDefaultPids, underLoss: true},
	// The pod's end, exit statuses, restarts and identity (exits.go).
	{ids: []string{spec.ID004, spec.ID005}, check: checkUID, underUpdate: true, underLoss: true},
	{ids: []string{spec.EXIT008}, check: checkPolicyOrder},
	{ids: []string{spec.EXIT010}, applies: hasInit, check: checkInitialized},
	{ids: []string{spec.EXIT011}, check: checkFinishedAt, underUpdate: true},
	{ids: []string{spec.EXIT012, spec.EXIT013}, check: checkFailureCounts},
	{ids: []string{spec.STAT004}, check: checkOOMKilled, underUpdate: true},
	{ids: []string{spec.STAT005}, check: checkCoreDumped, underUpdate: true},
	{ids: []string{spec.RST002}, applies: hasOwnPolicy, check: checkPolicySource(spec.RST002)},
	{ids: []string{spec.INIT002}, applies: hasAlwaysInit, check: checkPolicySource(spec.INIT002)},
	{ids: []string{spec.MAN011}, applies: restartsAlways, check: checkPolicySource(spec.MAN011)},
	{ids: []string{spec.RST007}, check: checkRestartIsolation},
	{ids: []string{spec.RST009}, check: checkBackoffReset},
	// Updates (update.go): only where the scenario's schedule may update the pod.
	{ids: []string{spec.UPD004}, check: checkUpdateRefusedInStop, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD005}, check: checkGenerations, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD006, spec.UPD007, spec.UPD011}, check: checkUpdateRestarts, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD009, spec.UPD010}, check: checkUpdateLeavesRunning, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD013}, check: checkUpdateRevivesNothing, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD014}, check: checkUpdatedDeadline, onUpdate: true, underUpdate: true},
	{ids: []string{spec.UPD008}, check: checkReplacedNotCounted, onUpdate: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.UPD007, spec.UPD012}, check: checkUpdatedDefinition, onUpdate: true, underUpdate: true, underLoss: true},
	// The image's configuration (image.go): judged against what the harness read of each image.
	{ids: []string{spec.IMG008}, check: checkArgv, underUpdate: true, underLoss: true},
	{ids: []string{spec.IMG011}, check: checkImageUser, underUpdate: true, underLoss: true},
	{ids: []string{spec.IMG012}, check: checkUndefinedUser, underUpdate: true, underLoss: true},
	{ids: []string{spec.IMG016}, check: checkImageIDs, underUpdate: true, underLoss: true},
	// A supervisor's loss (supervisor.go): only where the scenario's schedule may crash it.
	{ids: []string{spec.SUP004}, check: checkAdoptionKeepsInstances, onCrash: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.SUP005}, check: checkLostExits, onCrash: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.SUP007}, applies: hasRegularInit, check: checkAdoptionNotRerun, onCrash: true, underUpdate: true, underLoss: true},
	{ids: []string{spec.SUP009}, check: checkEventSequence, onCrash: true, underUpdate: true, underLoss: true},
	// A delivery lost with its supervisor (lostdelivery.go).
	{ids: []string{spec.NTF012}, applies: hasNotifiers, check: checkLostDeliveriesNotRerun, onCrash: true, underUpdate: true, underLoss: true},
}

func hasSidecar(p *v1alpha1.Pod) bool {
	for i := range p.Spec.InitContainers {
		if rp := p.Spec.InitContainers[i].RestartPolicy; rp != nil && *rp == v1alpha1.RestartPolicyAlways {
			return true
		}
	}
	return false
}

func hasDependencies(p *v1alpha1.Pod) bool {
	for i := range p.Spec.Containers {
		if len(p.Spec.Containers[i].DependsOn) > 0 {
			return true
		}
	}
	return false
}

func hasDefers(p *v1alpha1.Pod) bool { return len(p.Spec.DeferContainers) > 0 }

// hasRetriedDefers says a defer container has restartPolicy OnFailure.
func hasRetriedDefers(p *v1alpha1.Pod) bool {
	for i := range p.Spec.DeferContainers {
		if p.Spec.DeferContainers[i].RestartPolicy == v1alpha1.RestartPolicyOnFailure {
			return true
		}
	}
	return false
}

// anyContainer says some init or main container satisfies f.
func anyContainer(p *v1alpha1.Pod, f func(*v1alpha1.Container) bool) bool {
	for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			if f(&list[i]) {
				return true
			}
		}
	}
	return false
}

func hasHook(p *v1alpha1.Pod, pick func(*v1alpha1.Lifecycle) *v1alpha1.LifecycleHandler) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool { return c.Lifecycle != nil && pick(c.Lifecycle) != nil })
}

func hasPreStop(p *v1alpha1.Pod) bool {
	return hasHook(p, func(l *v1alpha1.Lifecycle) *v1alpha1.LifecycleHandler { return l.PreStop })
}

func hasPostStart(p *v1alpha1.Pod) bool {
	return hasHook(p, func(l *v1alpha1.Lifecycle) *v1alpha1.LifecycleHandler { return l.PostStart })
}

func hasNotifiers(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool { return len(c.Notifiers) > 0 })
}

// hasGatedProbes says a container has a probe whose first attempt waits for a postStart hook or
// a startup probe (HB-006, HB-007).
func hasGatedProbes(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool {
		gated := c.StartupProbe != nil || (c.Lifecycle != nil && c.Lifecycle.PostStart != nil)
		return gated && (c.StartupProbe != nil || c.ReadinessProbe != nil || c.LivenessProbe != nil)
	})
}

// hasStartGates says a container has a postStart hook, a startup probe or a readiness probe: what
// its Started and Ready wait for (DEP-007, DEP-008).
func hasStartGates(p *v1alpha1.Pod) bool {
	return anyContainer(p, func(c *v1alpha1.Container) bool {
		return c.StartupProbe != nil || c.ReadinessProbe != nil || (c.Lifecycle != nil && c.Lifecycle.PostStart != nil)
	})
}

// hasEmptyDir says the pod has an emptyDir volume.
func hasEmptyDir(p *v1alpha1.Pod) bool {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].EmptyDir != nil {
			return true
		}
	}
	return false
}
