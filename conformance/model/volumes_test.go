package model

import (
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// withData gives the pod an emptyDir data and mounts it at /data in a, whose workload reads and
// writes /data/kept as it starts (the probe's -read and -write).
func withData(p *v1alpha1.Pod) {
	p.Spec.Volumes = append(p.Spec.Volumes, v1alpha1.Volume{Name: "data", EmptyDir: &v1alpha1.EmptyDirVolumeSource{}})
	for i := range p.Spec.Containers {
		if c := &p.Spec.Containers[i]; c.Name == "a" {
			c.VolumeMounts = append(c.VolumeMounts, v1alpha1.VolumeMount{Name: "data", MountPath: "/data"})
			c.Args = append(c.Args, "-report", "-list", "/data", "-read", "/data/kept", "-write", "/data/kept=yes")
		}
	}
}

// startReport records c's report as it starts, at ms.
func (h *hist) startReport(ms int, c string, r probe.Report) *hist {
	r.RootfsChecked, r.FreshRootfs, r.RootfsWritable = true, true, true
	h.probe = append(h.probe, probe.Event{Container: c, Role: probe.RoleWorkload, Type: probe.TypeReport, Report: &r,
		Received: t0.Add(time.Duration(ms) * time.Millisecond)})
	return h
}

// firstSaw is a pod whose a, the only container mounting data, lists it as it starts.
func firstSaw(entries ...string) *hist {
	return twoMains(withData).work(120, "a", probe.TypeStart).startReport(121, "a", probe.Report{Dirs: map[string][]string{"/data": entries}}).
		exit(1000, "a", 0, "Completed").exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// secondRead is a pod (OnFailure) whose a exits 1 after writing /data/kept and is restarted; the
// second instance reads got from it as it starts.
func secondRead(got string) *hist {
	return pod(mains("a", "b"), withData, policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll)).add(0, runtimev1.EventPodCreated, "").
		start(100, "a").start(110, "b").work(120, "a", probe.TypeStart).startReport(121, "a", probe.Report{Files: map[string]string{"/data/kept": ""}}).
		work(490, "a", probe.TypeExit, code(1)).exit(500, "a", 1, "Error").
		start(800, "a").work(820, "a", probe.TypeStart).startReport(821, "a", probe.Report{Files: map[string]string{"/data/kept": got}}).
		work(990, "a", probe.TypeExit, code(0)).exit(1000, "a", 0, "Completed").
		exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// deferRead is an afterStop pod whose a writes /data/kept (yes) into emptyDir data as it starts
// and whose defer d, mounting data at /in, reads got from /in/kept as it starts (nothing: it
// could not read it, when got is "").
func deferRead(got string) *hist {
	mountIn := withD("d", func(d *v1alpha1.DeferContainer) {
		d.VolumeMounts = append(d.VolumeMounts, v1alpha1.VolumeMount{Name: "data", MountPath: "/in"})
		d.Args = append(d.Args, "-report", "-read", "/in/kept")
	})
	return afterStop([]podOpt{withData, mountIn}, "d").work(120, "a", probe.TypeStart).
		startReport(121, "a", probe.Report{Files: map[string]string{"/data/kept": ""}}).
		start(1110, "d").work(1115, "d", probe.TypeStart).startReport(1116, "d", probe.Report{Files: files("/in/kept", got)}).
		exit(1200, "d", 0, "Completed").done(1300, v1alpha1.ConditionTrue, "")
}

func volumeCases() []modelCase {
	return []modelCase{
		{"an emptyDir empty when its first user starts conforms", firstSaw(), nil},
		{"an emptyDir holding a file when its first user starts breaks VOL-004", firstSaw(".podspec-volume"), []string{spec.VOL004}},
		{"an emptyDir keeping what the previous instance wrote conforms", secondRead("yes"), nil},
		{"an emptyDir emptied for a restart breaks VOL-005", secondRead(""), []string{spec.VOL005}},
		{"a defer reading what a main container wrote into their emptyDir conforms", deferRead("yes"), nil},
		{"a defer not seeing what a main container wrote into their emptyDir breaks DEFER-016", deferRead(""), []string{spec.DEFER016}},
	}
}

// files is a report's Files with path read as content, or without it when content is "".
func files(path, content string) map[string]string {
	if content == "" {
		return map[string]string{}
	}
	return map[string]string{path: content}
}
