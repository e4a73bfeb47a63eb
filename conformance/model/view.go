package model

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/moby/sys/capability"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of what each instance sees (SEC, VOL, RES), judged on the reports its processes sent of
// their environment (probe.Report): the workload's own reports, and for what holds of every
// process of a container, its exec hooks' too. A rule judges only what a report could read (a
// capability set, a mount table or a cgroup the probe could not read is not judged), and only
// what the manifest and the specification decide: what a runtime may choose (its default pids
// limit, which capabilities its default set leaves out) it is never held to. An update replaces
// instances with a manifest the model does not replay, so these rules are not judged on a
// history with one.

// outlook is what the manifest says a container's processes see.
type outlook struct {
	name   string
	argv   []string
	mounts []v1alpha1.VolumeMount
	res    *v1alpha1.ResourceRequirements
	sc     *v1alpha1.SecurityContext // nil for a defer container, which has none
	// policy is the container's effective restart policy (RST-002).
	policy v1alpha1.RestartPolicy
	vols   map[string]*v1alpha1.Volume
}

// outlooks are the manifest's containers as their processes see them, in manifest order.
func outlooks(p *v1alpha1.Pod) []outlook {
	vols := map[string]*v1alpha1.Volume{}
	for i := range p.Spec.Volumes {
		vols[p.Spec.Volumes[i].Name] = &p.Spec.Volumes[i]
	}
	var out []outlook
	for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			c := &list[i]
			out = append(out, outlook{name: c.Name, argv: slices.Concat(c.Command, c.Args), mounts: c.VolumeMounts, res: c.Resources, sc: c.SecurityContext, policy: effective(c, p.Spec.RestartPolicy), vols: vols})
		}
	}
	for i := range p.Spec.DeferContainers {
		d := &p.Spec.DeferContainers[i]
		out = append(out, outlook{name: d.Name, argv: slices.Concat(d.Command, d.Args), mounts: d.VolumeMounts, res: d.Resources, policy: d.RestartPolicy, vols: vols})
	}
	return out
}

// reports says the container's workload reports what it sees (the probe's report flag).
func (v outlook) reports() bool { return slices.Contains(v.argv, probe.ReportFlag) }

// restarts says the container may run more than one instance: its effective restart policy is
// not Never (a sidecar's is Always).
func (v outlook) restarts() bool { return v.policy != "" && v.policy != v1alpha1.RestartPolicyNever }

// memoryMounts are the container's mounts of emptyDir volumes with medium Memory.
func (v outlook) memoryMounts() []v1alpha1.VolumeMount {
	var out []v1alpha1.VolumeMount
	for _, m := range v.mounts {
		if vol := v.vols[m.Name]; vol != nil && vol.EmptyDir != nil && vol.EmptyDir.Medium == "Memory" {
			out = append(out, m)
		}
	}
	return out
}

// anyReport says some container's workload reports what it sees: the rules of this file
// have something to judge.
func anyReport(p *v1alpha1.Pod) bool { return reportsWith(func(outlook) bool { return true })(p) }

// reportsWith says some container whose workload reports what it sees satisfies f.
func reportsWith(f func(outlook) bool) func(*v1alpha1.Pod) bool {
	return func(p *v1alpha1.Pod) bool {
		return slices.ContainsFunc(outlooks(p), func(v outlook) bool { return v.reports() && f(v) })
	}
}

func readOnlyRoot(sc *v1alpha1.SecurityContext) bool {
	return sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
}

// seen is one report of what a process of a container saw.
type seen struct {
	v    outlook
	role string
	n    int // 1-based, among the container's reports of this role
	r    *probe.Report
}

func (s seen) finding(rule, format string, args ...any) Finding {
	who := "its workload"
	if s.role == probe.RoleHook {
		who = "a hook"
	}
	return Finding{Rule: rule, Container: s.v.name, Message: fmt.Sprintf("report %d of %s: ", s.n, who) + fmt.Sprintf(format, args...)}
}

// seenBy are the reports of the manifest's containers, in arrival order: the workloads' own and,
// with hooks, their exec hooks' (processes of the same container).
func seenBy(rp *replay, hooks bool) []seen {
	byName := map[string]outlook{}
	for _, v := range outlooks(rp.pod) {
		byName[v.name] = v
	}
	count := map[string]int{}
	var out []seen
	for _, p := range rp.probe {
		v, ok := byName[p.Container]
		if !ok || p.Type != probe.TypeReport || p.Report == nil {
			continue
		}
		if p.Role != probe.RoleWorkload && !(hooks && p.Role == probe.RoleHook) {
			continue
		}
		count[p.Container+"/"+p.Role]++
		out = append(out, seen{v: v, role: p.Role, n: count[p.Container+"/"+p.Role], r: p.Report})
	}
	return out
}

// capabilityBits maps a capability's name as the manifest writes it (CHOWN) to its bit.
var capabilityBits = func() map[v1alpha1.Capability]uint {
	out := map[v1alpha1.Capability]uint{}
	for _, c := range capability.ListKnown() {
		out[v1alpha1.Capability(strings.ToUpper(c.String()))] = uint(c)
	}
	return out
}()

// capabilityMask is the set of the named capabilities as a bit mask.
func capabilityMask(names []v1alpha1.Capability) uint64 {
	var m uint64
	for _, n := range names {
		if b, ok := capabilityBits[n]; ok {
			m |= 1 << b
		}
	}
	return m
}

// capabilityNames names the capabilities of a mask.
func capabilityNames(m uint64) string {
	var names []string
	for b := range uint(64) {
		if m&(1<<b) == 0 {
			continue
		}
		name := fmt.Sprintf("bit %d", b)
		for n, nb := range capabilityBits {
			if nb == b {
				name = string(n)
			}
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// boundingSet is a report's capability bounding set; false when the probe could not read it.
func boundingSet(r *probe.Report) (uint64, bool) {
	if r.CapBnd == "" {
		return 0, false
	}
	m, err := strconv.ParseUint(r.CapBnd, 16, 64)
	return m, err == nil
}

// checkPrivileges: every container process runs with noNewPrivileges (SEC-001) and a bounding
// set within SEC-002's (the default set's) capabilities. Both come from /proc/self/status: a
// report without a bounding set could not read it, and its noNewPrivileges is not judged either.
func checkPrivileges(rp *replay) []Finding {
	allowed := capabilityMask(v1alpha1.DefaultCapabilities)
	var out []Finding
	for _, s := range seenBy(rp, true) {
		bnd, ok := boundingSet(s.r)
		if !ok {
			continue
		}
		if !s.r.NoNewPrivs {
			out = append(out, s.finding(spec.SEC001, "the process runs without noNewPrivileges"))
		}
		if extra := bnd &^ allowed; extra != 0 {
			out = append(out, s.finding(spec.SEC002, "the capability bounding set %s holds %s, beyond the set %s allows", s.r.CapBnd, capabilityNames(extra), spec.SEC002))
		}
	}
	return out
}

// sec004Paths are the paths SEC-004 has mounted read-only, as the probe checks them.
var sec004Paths = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}

// checkProcPaths: SEC-003's paths are masked (not "visible": bound to /dev/null, an empty
// directory, or absent), and SEC-004's paths, where the kernel has them, lie on a read-only mount
// (the one that holds the path: the last mounted at it or at its nearest parent).
func checkProcPaths(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, true) {
		for _, p := range sortedKeys(s.r.Masked) {
			if s.r.Masked[p] == "visible" {
				out = append(out, s.finding(spec.SEC003, "%s is visible, not masked", p))
			}
		}
		if s.r.MountsError != "" || len(s.r.Mounts) == 0 {
			continue
		}
		for _, p := range sec004Paths {
			if slices.Contains(s.r.Absent, p) {
				continue // this kernel has no such path: nothing to protect
			}
			if m := holding(s.r.Mounts, p); m != nil && !m.ReadOnly {
				out = append(out, s.finding(spec.SEC004, "%s is writable (it lies on the read-write mount at %s)", p, m.Path))
			}
		}
	}
	return out
}

// holding is the mount a path lies on: the last mounted at the path or, failing that, at its
// nearest parent (nil when the table holds neither).
func holding(mounts []probe.Mount, p string) *probe.Mount {
	for dir := path.Clean(p); ; dir = path.Dir(dir) {
		for i := len(mounts) - 1; i >= 0; i-- {
			if mounts[i].Path == dir {
				return &mounts[i]
			}
		}
		if dir == "/" {
			return nil
		}
	}
}

// mountAt is the mount visible at a path: the last one mounted there (nil when none is).
func mountAt(mounts []probe.Mount, p string) *probe.Mount {
	for i := len(mounts) - 1; i >= 0; i-- {
		if mounts[i].Path == p {
			return &mounts[i]
		}
	}
	return nil
}

// sharedNamespaces are the namespaces all the containers of a pod share (SEC-008).
var sharedNamespaces = []string{"net", "ipc", "uts"}

// checkSharedNamespaces: every report of every container of the pod, whenever it was made,
// names the same network, IPC and UTS namespace (SEC-008: one namespace of each, held for the
// pod's whole life). A namespace a report could not read is not judged.
func checkSharedNamespaces(rp *replay) []Finding {
	var out []Finding
	first := map[string]seen{}
	for _, s := range seenBy(rp, true) {
		for _, ns := range sharedNamespaces {
			id := s.r.Namespaces[ns]
			if id == "" {
				continue
			}
			f, ok := first[ns]
			if !ok {
				first[ns] = s
				continue
			}
			if had := f.r.Namespaces[ns]; had != id {
				out = append(out, s.finding(spec.SEC008, "its %s namespace is %s, but %s's report %d saw %s: the pod's containers do not share one", ns, id, f.v.name, f.n, had))
			}
		}
	}
	return out
}

// checkLoopbackOnly: the pod's network namespace has only the loopback interface (SEC-009). A
// report that lists no interface could not read them.
func checkLoopbackOnly(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, true) {
		if len(s.r.Interfaces) > 0 && !slices.Equal(s.r.Interfaces, []string{"lo"}) {
			out = append(out, s.finding(spec.SEC009, "the network namespace has the interfaces %s, not the loopback interface alone", strings.Join(s.r.Interfaces, ", ")))
		}
	}
	return out
}

// checkRunAs: a container's workload runs as its runAsUser and with its runAsGroup (SEC-021).
// The primary group of a runAsUser without runAsGroup comes from the image, which the model does
// not read: it is not judged.
func checkRunAs(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		sc := s.v.sc
		if sc == nil {
			continue
		}
		if sc.RunAsUser != nil && int64(s.r.UID) != *sc.RunAsUser {
			out = append(out, s.finding(spec.SEC021, "the process runs as user %d, not runAsUser %d", s.r.UID, *sc.RunAsUser))
		}
		if sc.RunAsGroup != nil && int64(s.r.GID) != *sc.RunAsGroup {
			out = append(out, s.finding(spec.SEC021, "the process runs with group %d, not runAsGroup %d", s.r.GID, *sc.RunAsGroup))
		}
	}
	return out
}

// checkReadOnlyRoot: a container with readOnlyRootFilesystem cannot write its root filesystem
// (SEC-023); the workload tries once, as it starts.
func checkReadOnlyRoot(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		if readOnlyRoot(s.v.sc) && s.r.RootfsWritable {
			out = append(out, s.finding(spec.SEC023, "readOnlyRootFilesystem is true, yet the process wrote its root filesystem"))
		}
	}
	return out
}

// checkCapabilityChanges: the bounding set of a container with securityContext.capabilities
// holds every capability add names and none that drop names and add does not (with drop ALL,
// none but add's) (SEC-024). What the runtime's default set holds beyond that is its own.
func checkCapabilityChanges(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		if s.v.sc == nil || s.v.sc.Capabilities == nil {
			continue
		}
		bnd, ok := boundingSet(s.r)
		if !ok {
			continue
		}
		c := s.v.sc.Capabilities
		add := capabilityMask(c.Add)
		drop := capabilityMask(c.Drop)
		if slices.Contains(c.Drop, "ALL") {
			drop = math.MaxUint64
		}
		if missing := add &^ bnd; missing != 0 {
			out = append(out, s.finding(spec.SEC024, "the bounding set %s lacks %s, which capabilities.add names", s.r.CapBnd, capabilityNames(missing)))
		}
		if kept := bnd & drop &^ add; kept != 0 {
			out = append(out, s.finding(spec.SEC024, "the bounding set %s holds %s, which capabilities.drop names", s.r.CapBnd, capabilityNames(kept)))
		}
	}
	return out
}

// checkMemoryVolumes: an emptyDir volume with medium Memory is a tmpfs where the container
// mounts it (VOL-006). Its size is not in the mount table the probe reports: not judged.
func checkMemoryVolumes(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		if s.r.MountsError != "" || len(s.r.Mounts) == 0 {
			continue
		}
		for _, vm := range s.v.memoryMounts() {
			m := mountAt(s.r.Mounts, path.Clean(vm.MountPath))
			switch {
			case m == nil:
				out = append(out, s.finding(spec.VOL006, "volume %s (medium Memory) is not mounted at %s", vm.Name, vm.MountPath))
			case m.FSType != "tmpfs":
				out = append(out, s.finding(spec.VOL006, "volume %s (medium Memory) is a %s at %s, not a tmpfs", vm.Name, m.FSType, vm.MountPath))
			}
		}
	}
	return out
}

// checkReadOnlyMounts: a volume a container mounts readOnly is read-only there, and so is every
// mount below it that is not another of the container's volumes (VOL-009, all the way down). A
// mount path the table does not hold is not judged: a sandbox's kernel may show a volume as part
// of another filesystem.
func checkReadOnlyMounts(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		if s.r.MountsError != "" || len(s.r.Mounts) == 0 {
			continue
		}
		for _, vm := range s.v.mounts {
			if !vm.ReadOnly {
				continue
			}
			top := path.Clean(vm.MountPath)
			if m := mountAt(s.r.Mounts, top); m != nil && !m.ReadOnly {
				out = append(out, s.finding(spec.VOL009, "volume %s is mounted read-write at %s, which says readOnly", vm.Name, top))
			}
			for _, m := range s.r.Mounts {
				if !below(m.Path, top) || m.ReadOnly || s.v.ownMount(m.Path, top) {
					continue
				}
				out = append(out, s.finding(spec.VOL009, "%s, below volume %s mounted readOnly at %s, is read-write", m.Path, vm.Name, top))
			}
		}
	}
	return out
}

// below says p lies strictly below dir.
func below(p, dir string) bool {
	return strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// ownMount says p is at or below another of the container's volume mounts, itself below top.
func (v outlook) ownMount(p, top string) bool {
	for _, m := range v.mounts {
		mp := path.Clean(m.MountPath)
		if below(mp, top) && (p == mp || below(p, mp)) {
			return true
		}
	}
	return false
}

// pageSlack is how far below a memory limit the kernel may show it: it keeps the limit in pages
// (at most 64 KiB each).
const pageSlack = 64 << 10

// checkLimits: the cgroup of each instance of a container has its cpu, memory and pids limits
// (RES-002), as the workload read them from inside; a limit it could not read (0, or version 0)
// is not judged. A cpu limit is a quota per period, within a hundredth of a core (the kernel's
// minimum quota of a millisecond rounds a tiny one up).
func checkLimits(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		cg := s.r.Cgroup
		if s.v.res == nil || cg.Version == 0 {
			continue
		}
		lim := s.v.res.Limits
		if q, ok := lim[v1alpha1.ResourceMemory]; ok && cg.MemoryBytes != 0 {
			if want, err := q.Bytes(); err == nil && (cg.MemoryBytes < 0 || cg.MemoryBytes > want || want-cg.MemoryBytes >= pageSlack) {
				out = append(out, s.finding(spec.RES002, "the cgroup's memory limit is %s, not the limit %s (%d bytes)", limitText(cg.MemoryBytes), q, want))
			}
		}
		if q, ok := lim[v1alpha1.ResourcePIDs]; ok && cg.Pids != 0 {
			if want, err := q.Count(); err == nil && cg.Pids != want {
				out = append(out, s.finding(spec.RES002, "the cgroup's pids limit is %s, not the limit %s", limitText(cg.Pids), q))
			}
		}
		if q, ok := lim[v1alpha1.ResourceCPU]; ok && cg.CPUPeriodMicros > 0 && cg.CPUQuotaMicros != 0 {
			want, err := q.MilliCPU()
			if err != nil {
				continue
			}
			got := float64(cg.CPUQuotaMicros) / float64(cg.CPUPeriodMicros)
			if cg.CPUQuotaMicros < 0 || math.Abs(got-float64(want)/1000) > 0.01 {
				out = append(out, s.finding(spec.RES002, "the cgroup's cpu quota is %s per %d µs, not the limit %s", limitText(cg.CPUQuotaMicros), cg.CPUPeriodMicros, q))
			}
		}
	}
	return out
}

// limitText is a cgroup limit as the probe read it (-1 is none).
func limitText(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return strconv.FormatInt(n, 10)
}

// checkDefaultPids: the cgroup of a container that sets no pids limit has a finite one
// (RES-003); which one is the runtime's to document.
func checkDefaultPids(rp *replay) []Finding {
	var out []Finding
	for _, s := range seenBy(rp, false) {
		if s.v.res != nil && s.v.res.Limits[v1alpha1.ResourcePIDs] != "" {
			continue
		}
		if s.r.Cgroup.Version != 0 && s.r.Cgroup.Pids < 0 {
			out = append(out, s.finding(spec.RES003, "the container sets no pids limit and its cgroup has none"))
		}
	}
	return out
}

// checkNewInstances: every instance of a container has a containerID of its own and a fresh root
// filesystem (RST-004): the marker an earlier instance wrote in its root filesystem, outside its
// volumes, is not visible to a later one (IMG-009). Only the report a workload sends as it starts
// looks for the marker.
func checkNewInstances(rp *replay) []Finding {
	out := checkNewContainerIDs(rp)
	for _, s := range seenBy(rp, false) {
		if s.r.RootfsChecked && !s.r.FreshRootfs {
			out = append(out, s.finding(spec.RST004, "the instance found the marker an earlier instance wrote in its root filesystem: its root filesystem is not fresh"),
				s.finding(spec.IMG009, "the marker an earlier instance wrote in its root filesystem, outside its volumes, is visible to this one"))
		}
	}
	return out
}

// checkNewContainerIDs: every instance of a container has a containerID of its own (RST-004);
// the instances of a history with a supervisor's loss are not all the runtime's records, so it
// is not judged there.
func checkNewContainerIDs(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		seen := map[string]int{}
		for _, in := range c.insts {
			id := in.containerID()
			if id == "" {
				continue
			}
			if k, dup := seen[id]; dup {
				out = append(out, Finding{Rule: spec.RST004, Seq: in.earliest().Seq, Container: c.name,
					Message: fmt.Sprintf("instance %d has the containerID %s of instance %d", in.n+1, id, k+1)})
				continue
			}
			seen[id] = in.n
		}
	}
	return out
}
