package model

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of emptyDir volumes' content (VOL-004, VOL-005), judged on the report a workload sends as
// it starts (the probe's -report: it lists and reads what it was asked to, as the volume was when
// the instance started, before its own -write files) against what earlier instances wrote there.

// emptyDirAt is the emptyDir volume a container mounts at exactly dir, or "".
func (rp *replay) emptyDirAt(c *container, dir string) string {
	for _, m := range c.mounts() {
		if path.Clean(m.MountPath) == path.Clean(dir) && rp.isEmptyDir(m.Name) {
			return m.Name
		}
	}
	return ""
}

func (rp *replay) isEmptyDir(name string) bool {
	for i := range rp.pod.Spec.Volumes {
		if v := &rp.pod.Spec.Volumes[i]; v.Name == name {
			return v.EmptyDir != nil
		}
	}
	return false
}

// mounts are a container's volume mounts.
func (c *container) mounts() []v1alpha1.VolumeMount {
	switch {
	case c.spec != nil:
		return c.spec.VolumeMounts
	case c.dspec != nil:
		return c.dspec.VolumeMounts
	}
	return nil
}

// argv is a container's command and arguments.
func (c *container) argv() []string {
	switch {
	case c.spec != nil:
		return append(append([]string(nil), c.spec.Command...), c.spec.Args...)
	case c.dspec != nil:
		return append(append([]string(nil), c.dspec.Command...), c.dspec.Args...)
	}
	return nil
}

// startReport is the report the instance's workload sent as it started, or nil.
func (in *instance) startReport() *probe.Report {
	for _, p := range in.work {
		if p.Type == probe.TypeReport && p.Report != nil && p.Report.RootfsChecked {
			return p.Report
		}
	}
	return nil
}

// checkEmptyDirsEmpty: the first instance to start of all that mount an emptyDir finds it empty
// in the report it sends as it starts (VOL-004).
func checkEmptyDirsEmpty(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		for _, in := range c.startedInsts() {
			r := in.startReport()
			if r == nil {
				continue
			}
			for dir, entries := range r.Dirs {
				vol := rp.emptyDirAt(c, dir)
				if vol == "" || len(entries) == 0 || rp.mountedBefore(vol, in) {
					continue
				}
				out = append(out, Finding{Rule: spec.VOL004, Seq: in.started.Seq, Container: c.name, Message: fmt.Sprintf(
					"instance %d, the first to start of those that mount emptyDir %s, found %s not empty as it started: %s",
					in.n+1, vol, dir, strings.Join(entries, ", "))})
			}
		}
	}
	return out
}

// mountedBefore says an instance of a container that mounts the volume started before in.
func (rp *replay) mountedBefore(vol string, in *instance) bool {
	for _, c := range rp.order {
		mounts := false
		for _, m := range c.mounts() {
			mounts = mounts || m.Name == vol
		}
		if !mounts {
			continue
		}
		for _, x := range c.startedInsts() {
			if x != in && x.started.Seq < in.started.Seq {
				return true
			}
		}
	}
	return false
}

// checkEmptyDirsKept: a file an instance wrote as it started (-write PATH=CONTENT) into an
// emptyDir it mounts writable is there, with that content, for the next instance of the
// container, which reads it (-read) as it starts, once the writer had reported its start and
// ended (VOL-005).
// Only the container's own writes are judged: another container may overwrite the file.
func checkEmptyDirsKept(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		writes := rp.emptyDirWrites(c)
		if len(writes) == 0 {
			continue
		}
		st := c.startedInsts()
		for i, in := range st {
			r := in.startReport()
			if r == nil || i == 0 {
				continue
			}
			prev := st[i-1]
			if prev.startReport() == nil || !before(prev.exited, in.started) {
				continue // the writer's writes are not known to be done
			}
			for p, content := range writes {
				if got := r.Files[p]; hasFlagValue(c.argv(), "-read", p) && got != content {
					out = append(out, Finding{Rule: spec.VOL005, Seq: in.started.Seq, Container: c.name, Message: fmt.Sprintf(
						"instance %d read %q from %s as it started, but instance %d wrote %q there into an emptyDir and ended: the volume lost its content",
						in.n+1, got, p, prev.n+1, content)})
				}
			}
		}
	}
	return out
}

// emptyDirWrites are the files the container's workload writes as it starts (-write
// PATH=CONTENT) inside an emptyDir it mounts writable, by path.
func (rp *replay) emptyDirWrites(c *container) map[string]string {
	out := map[string]string{}
	argv := c.argv()
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] != "-write" {
			continue
		}
		p, content, ok := strings.Cut(argv[i+1], "=")
		if !ok {
			continue
		}
		for _, m := range c.mounts() {
			if !m.ReadOnly && rp.isEmptyDir(m.Name) && below(path.Clean(p), path.Clean(m.MountPath)) {
				out[p] = content
			}
		}
	}
	return out
}

// hasFlagValue says argv holds flag immediately followed by value.
func hasFlagValue(argv []string, flag, value string) bool {
	return slices.Contains(flagValues(argv, flag), value)
}

// checkDefersSeeVolumes: a defer container's workload reads, as it starts, what the pod's other
// containers wrote into an emptyDir it mounts (DEFER-016): every container that writes the file
// (-write, at its own mount of the volume) writes the same content, and one of them reported its
// start, which it sends only once its writes are done, before the defer's instance started.
func checkDefersSeeVolumes(rp *replay) []Finding {
	var out []Finding
	for _, d := range rp.kind(kindDefer) {
		for _, in := range d.startedInsts() {
			r := in.startReport()
			if r == nil {
				continue
			}
			for _, m := range d.mounts() {
				if !rp.isEmptyDir(m.Name) {
					continue
				}
				for _, p := range flagValues(d.argv(), "-read") {
					if !below(path.Clean(p), path.Clean(m.MountPath)) {
						continue
					}
					got := r.Files[p] // a file it could not read is not in Files
					rel := strings.TrimPrefix(path.Clean(p), strings.TrimSuffix(path.Clean(m.MountPath), "/"))
					want, by, ok := rp.writtenBefore(d, m.Name, rel, in)
					if ok && got != want {
						out = append(out, Finding{Rule: spec.DEFER016, Seq: in.started.Seq, Container: d.name, Message: fmt.Sprintf(
							"instance %d read %q from %s as it started, but %s had written %q there, into emptyDir %s, before it started",
							in.n+1, got, p, by, want, m.Name)})
					}
				}
			}
		}
	}
	return out
}

// writtenBefore is the content every container but d writes at rel in the volume, and one that
// had reported its start (its writes done) before in started; ok is false when they write
// different contents or none had.
func (rp *replay) writtenBefore(d *container, vol, rel string, in *instance) (content, by string, ok bool) {
	contents := map[string]bool{}
	for _, c := range rp.order {
		if c == d {
			continue
		}
		for _, m := range c.mounts() {
			if m.Name != vol || m.ReadOnly {
				continue
			}
			want, writes := rp.emptyDirWrites(c)[path.Join(m.MountPath, rel)]
			if !writes {
				continue
			}
			contents[want] = true
			for _, w := range c.startedInsts() {
				for _, p := range w.work {
					if p.Type == probe.TypeReport && p.Report != nil && p.Report.RootfsChecked && p.Received.Before(in.started.Time) {
						content, by = want, c.name
					}
				}
			}
		}
	}
	return content, by, by != "" && len(contents) == 1
}

// flagValues are the values argv gives flag.
func flagValues(argv []string, flag string) []string {
	var out []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			out = append(out, argv[i+1])
		}
	}
	return out
}
