package model

import (
	"slices"
	"strconv"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// reporting makes a container's workload report what it sees, as the probe's command does.
func reporting(c *v1alpha1.Container) {
	c.Command = []string{"/podspec-probe", "run", probe.ReportFlag}
}

// seeing is a pod of two reporting main containers (a policy stop under Any, as stoppedB), with
// opts; a mounts the volume "data" read-only at /ro and read-write at /data, and the Memory
// emptyDir "mem" at /mem.
func seeing(opts ...podOpt) *hist {
	base := []podOpt{policy(v1alpha1.RestartPolicyNever, v1alpha1.ExitPolicyAny), withC("a", reporting), withC("b", reporting),
		func(p *v1alpha1.Pod) {
			p.Spec.Volumes = []v1alpha1.Volume{{Name: "data", EmptyDir: &v1alpha1.EmptyDirVolumeSource{}}, {Name: "mem", EmptyDir: &v1alpha1.EmptyDirVolumeSource{Medium: "Memory"}}}
		},
		withC("a", func(c *v1alpha1.Container) {
			c.VolumeMounts = []v1alpha1.VolumeMount{{Name: "data", MountPath: "/ro", ReadOnly: true}, {Name: "data", MountPath: "/data"}, {Name: "mem", MountPath: "/mem"}}
		})}
	return stoppedB(twoMains(append(base, opts...)...))
}

// restarted is a pod whose reporting a fails once under OnFailure and is restarted as an instance
// with containerID second (the first is a1), then both succeed.
func restarted(second string) *hist {
	return pod(mains("a", "b"), policy(v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAll), withC("a", reporting)).
		add(0, runtimev1.EventPodCreated, "").start(100, "a", id("a1")).start(110, "b", id("b1")).
		exit(1000, "a", 1, "Error").start(1300, "a", id(second)).exit(1500, "a", 0, "Completed").
		exit(2000, "b", 0, "Completed").fire(2001, "b").terminating(2002).
		finish(2100, v1alpha1.PodSucceeded, 0, "b", "Completed")
}

// defaultBnd is the default capability set, as /proc/self/status writes CapBnd.
var defaultBnd = strconv.FormatUint(capabilityMask(v1alpha1.DefaultCapabilities), 16)

// seen records a workload's (or, with role, a hook's) report of a conforming environment, as
// mod changes it.
func (h *hist) seen(ms int, c string, mod ...func(*probe.Report)) *hist {
	return h.seenAs(ms, c, probe.RoleWorkload, mod...)
}

func (h *hist) seenAs(ms int, c, role string, mod ...func(*probe.Report)) *hist {
	r := &probe.Report{
		UID: 0, GID: 0, NoNewPrivs: true, CapBnd: defaultBnd,
		Namespaces: map[string]string{"net": "net:[1]", "ipc": "ipc:[2]", "uts": "uts:[3]", "mnt": "mnt:[4" + c + "]"},
		Interfaces: []string{"lo"},
		Masked:     map[string]string{"/proc/kcore": "null-device", "/proc/keys": "null-device", "/proc/timer_list": "null-device", "/sys/firmware": "empty"},
		Cgroup:     probe.CgroupLimits{Version: 2, MemoryBytes: -1, Pids: 1024, CPUQuotaMicros: -1, CPUPeriodMicros: 100000},
		Mounts: []probe.Mount{
			{Path: "/", FSType: "overlay"}, {Path: "/proc", FSType: "proc"},
			{Path: "/proc/bus", FSType: "proc", ReadOnly: true}, {Path: "/proc/sys", FSType: "proc", ReadOnly: true},
			{Path: "/proc/irq", FSType: "proc", ReadOnly: true}, {Path: "/proc/sysrq-trigger", FSType: "proc", ReadOnly: true},
			{Path: "/probe", FSType: "ext4"},
		},
	}
	if c == "a" {
		r.Mounts = append(r.Mounts, probe.Mount{Path: "/ro", FSType: "ext4", ReadOnly: true}, probe.Mount{Path: "/data", FSType: "ext4"}, probe.Mount{Path: "/mem", FSType: "tmpfs"})
	}
	for _, m := range mod {
		m(r)
	}
	h.work(ms, c, probe.TypeReport, func(p *probe.Event) { p.Role, p.Report = role, r })
	return h
}

// mount changes the mounts of a report at a path (adding one when there is none).
func mount(p string, f func(*probe.Mount)) func(*probe.Report) {
	return func(r *probe.Report) {
		for i := range r.Mounts {
			if r.Mounts[i].Path == p {
				f(&r.Mounts[i])
				return
			}
		}
		m := probe.Mount{Path: p, FSType: "tmpfs"}
		f(&m)
		r.Mounts = append(r.Mounts, m)
	}
}

func writable(m *probe.Mount) { m.ReadOnly = false }

func securityContext(sc v1alpha1.SecurityContext) func(*v1alpha1.Container) {
	return func(c *v1alpha1.Container) { c.SecurityContext = &sc }
}

func limits(l v1alpha1.ResourceList) func(*v1alpha1.Container) {
	return func(c *v1alpha1.Container) { c.Resources = &v1alpha1.ResourceRequirements{Limits: l} }
}

func i64(v int64) *int64 { return &v }

func viewCases() []modelCase {
	yes := true
	capsChanged := withC("b", securityContext(v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{Drop: []v1alpha1.Capability{"ALL"}, Add: []v1alpha1.Capability{"CHOWN", "DAC_OVERRIDE"}}}))
	limited := withC("b", limits(v1alpha1.ResourceList{"memory": "64Mi", "pids": "64", "cpu": "500m"}))
	limitedOK := func(r *probe.Report) {
		r.Cgroup = probe.CgroupLimits{Version: 2, MemoryBytes: 64 << 20, Pids: 64, CPUQuotaMicros: 50000, CPUPeriodMicros: 100000}
	}
	fresh := func(r *probe.Report) { r.RootfsChecked, r.FreshRootfs, r.RootfsWritable = true, true, true }
	stale := func(r *probe.Report) { r.RootfsChecked, r.FreshRootfs, r.RootfsWritable = true, false, true }
	return []modelCase{
		{"instances of a restarted container, each with its own root filesystem and containerID, conform", restarted("a2").
			seen(200, "a", fresh).seen(1400, "a", fresh).seen(1450, "a"), nil},
		{"a restart that finds the marker of the earlier instance breaks RST-004 and IMG-009", restarted("a2").
			seen(200, "a", fresh).seen(1400, "a", stale), []string{spec.RST004, spec.IMG009}},
		{"a restart with the earlier instance's containerID breaks RST-004", restarted("a1"), []string{spec.RST004}},
		{"containers that see what the manifest and the specification say conform", seeing().seen(200, "a").seen(210, "b").
			seenAs(300, "a", probe.RoleHook), nil},
		{"a report that could read neither its status, its mounts nor its cgroup is not judged", seeing(limited).seen(200, "a").
			seen(210, "b", func(r *probe.Report) {
				r.CapBnd, r.NoNewPrivs, r.Mounts, r.MountsError, r.Cgroup, r.Interfaces = "", false, nil, "unreadable", probe.CgroupLimits{}, nil
			}), nil},
		{"a process without noNewPrivileges breaks SEC-001", seeing().seen(200, "a").
			seen(210, "b", func(r *probe.Report) { r.NoNewPrivs = false }), []string{spec.SEC001}},
		{"a hook without noNewPrivileges breaks SEC-001", seeing().seen(200, "a").
			seenAs(300, "a", probe.RoleHook, func(r *probe.Report) { r.NoNewPrivs = false }), []string{spec.SEC001}},
		{"a bounding set with CAP_SYS_ADMIN breaks SEC-002", seeing().seen(200, "a").
			seen(210, "b", func(r *probe.Report) {
				r.CapBnd = strconv.FormatUint(capabilityMask(v1alpha1.DefaultCapabilities)|1<<21, 16)
			}), []string{spec.SEC002}},
		{"a visible /proc/kcore breaks SEC-003", seeing().seen(200, "a", func(r *probe.Report) { r.Masked["/proc/kcore"] = "visible" }), []string{spec.SEC003}},
		{"a writable /proc/sys breaks SEC-004", seeing().seen(200, "a", mount("/proc/sys", writable)), []string{spec.SEC004}},
		{"/proc/bus on the read-write /proc, with no mount of its own, breaks SEC-004", seeing().seen(200, "a", func(r *probe.Report) {
			r.Mounts = slices.DeleteFunc(r.Mounts, func(m probe.Mount) bool { return m.Path == "/proc/bus" })
		}), []string{spec.SEC004}},
		{"a read-only path the kernel lacks is not judged", seeing().seen(200, "a", func(r *probe.Report) {
			r.Mounts = slices.DeleteFunc(r.Mounts, func(m probe.Mount) bool { return m.Path == "/proc/bus" })
			r.Absent = []string{"/proc/bus"}
		}), nil},
		{"a container in a UTS namespace of its own breaks SEC-008", seeing().seen(200, "a").
			seen(210, "b", func(r *probe.Report) { r.Namespaces["uts"] = "uts:[9]" }), []string{spec.SEC008}},
		{"a network namespace with another interface breaks SEC-009", seeing().seen(200, "a", func(r *probe.Report) { r.Interfaces = []string{"lo", "eth0"} }), []string{spec.SEC009}},
		{"a process run as runAsUser and runAsGroup conforms", seeing(withC("b", securityContext(v1alpha1.SecurityContext{RunAsUser: i64(1234), RunAsGroup: i64(5678)}))).
			seen(210, "b", func(r *probe.Report) { r.UID, r.GID = 1234, 5678 }), nil},
		{"a process run as the image's user despite runAsUser and runAsGroup breaks SEC-021 twice", seeing(withC("b", securityContext(v1alpha1.SecurityContext{RunAsUser: i64(1234), RunAsGroup: i64(5678)}))).
			seen(210, "b"), []string{spec.SEC021, spec.SEC021}},
		{"a root filesystem written despite readOnlyRootFilesystem breaks SEC-023", seeing(withC("b", securityContext(v1alpha1.SecurityContext{ReadOnlyRootFilesystem: &yes}))).
			seen(210, "b", func(r *probe.Report) { r.RootfsWritable = true }), []string{spec.SEC023}},
		{"drop ALL, add CHOWN and DAC_OVERRIDE, seen as those two, conforms", seeing(capsChanged).
			seen(210, "b", func(r *probe.Report) { r.CapBnd = "3" }), nil},
		{"drop ALL ignored (the default set) breaks SEC-024", seeing(capsChanged).seen(210, "b"), []string{spec.SEC024}},
		{"an added capability missing breaks SEC-024", seeing(capsChanged).
			seen(210, "b", func(r *probe.Report) { r.CapBnd = "1" }), []string{spec.SEC024}},
		{"a Memory emptyDir on disk breaks VOL-006", seeing().seen(200, "a", mount("/mem", func(m *probe.Mount) { m.FSType = "ext4" })), []string{spec.VOL006}},
		{"a readOnly mount mounted read-write breaks VOL-009", seeing().seen(200, "a", mount("/ro", writable)), []string{spec.VOL009}},
		{"a read-write mount below a readOnly one breaks VOL-009 (all the way down)", seeing().seen(200, "a", mount("/ro/sub", writable)), []string{spec.VOL009}},
		{"another volume mounted read-write below a readOnly one conforms", seeing(withC("a", func(c *v1alpha1.Container) {
			c.VolumeMounts = append(c.VolumeMounts, v1alpha1.VolumeMount{Name: "mem", MountPath: "/ro/mem"})
		})).seen(200, "a", mount("/ro/mem", writable), mount("/ro/mem/deeper", writable)), nil},
		{"the cpu, memory and pids limits in the cgroup conform", seeing(limited).seen(210, "b", limitedOK), nil},
		{"64Mi read as 64M breaks RES-002", seeing(limited).seen(210, "b", limitedOK, func(r *probe.Report) { r.Cgroup.MemoryBytes = 64_000_000 }), []string{spec.RES002}},
		{"no pids and no cpu limit in the cgroup break RES-002 twice", seeing(limited).
			seen(210, "b", limitedOK, func(r *probe.Report) { r.Cgroup.Pids, r.Cgroup.CPUQuotaMicros = -1, -1 }), []string{spec.RES002, spec.RES002}},
		{"no pids limit where the manifest sets none breaks RES-003", seeing().seen(200, "a", func(r *probe.Report) { r.Cgroup.Pids = -1 }), []string{spec.RES003}},
	}
}

// A pod whose workloads report nothing gives the rules of what a container sees nothing to judge:
// its model spec is not labelled with them.
func TestViewRulesNeedAReport(t *testing.T) {
	quiet := seeing(withC("a", func(c *v1alpha1.Container) { c.Command = nil }), withC("b", func(c *v1alpha1.Container) { c.Command = nil }))
	loud := seeing()
	viewIDs := []string{spec.SEC001, spec.SEC002, spec.SEC003, spec.SEC004, spec.SEC008, spec.SEC009, spec.SEC021, spec.SEC023,
		spec.SEC024, spec.VOL006, spec.VOL009, spec.RES002, spec.RST004, spec.IMG009, spec.RES003}
	for _, id := range viewIDs {
		if slices.Contains(Rules(quiet.pod, Schedule{}), id) {
			t.Errorf("%s labels a pod whose workloads report nothing", id)
		}
	}
	for _, id := range []string{spec.SEC001, spec.SEC008, spec.VOL006, spec.VOL009, spec.RES003} {
		if !slices.Contains(Rules(loud.pod, Schedule{}), id) {
			t.Errorf("%s does not label a pod whose workloads report", id)
		}
	}
}
