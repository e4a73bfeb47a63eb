package validation

import (
	"path"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// validateVolumes checks volume names and sources (VOL-002, VOL-003) and returns the set of
// declared volume names for the mount checks.
func validateVolumes(vols []v1alpha1.Volume, p *field.Path) (field.ErrorList, map[string]bool) {
	var errs field.ErrorList
	names := make(map[string]bool, len(vols))
	for i := range vols {
		v := &vols[i]
		vp := p.Index(i)
		np := vp.Child("name")
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(spec.MAN003, np, "every volume needs a name"))
		case dnsLabelProblem(v.Name) != "":
			errs = append(errs, field.Invalid(spec.VOL002, np, v.Name, dnsLabelProblem(v.Name)))
		case names[v.Name]:
			errs = append(errs, field.Duplicate(spec.VOL002, np, v.Name, "volume names must be unique"))
		}
		if v.Name != "" {
			names[v.Name] = true
		}
		errs = append(errs, validateVolumeSource(v, vp)...)
	}
	return errs, names
}

// validateVolumeSource checks that a volume has exactly one source (VOL-002) and that the
// source is well formed (VOL-003).
func validateVolumeSource(v *v1alpha1.Volume, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var set []string
	if v.EmptyDir != nil {
		set = append(set, "emptyDir")
		errs = append(errs, validateEmptyDir(v.EmptyDir, p.Child("emptyDir"))...)
	}
	if v.HostPath != nil {
		set = append(set, "hostPath")
		errs = append(errs, validateHostPath(v.HostPath, p.Child("hostPath"))...)
	}
	if v.Shared != nil {
		set = append(set, "shared")
		errs = append(errs, validateShared(v.Shared, p.Child("shared"))...)
	}
	switch {
	case len(set) == 0:
		errs = append(errs, field.Required(spec.VOL002, p, "a volume needs exactly one source: emptyDir, hostPath or shared"))
	case len(set) > 1:
		// Like the schema engine, take the first source as the intended one and report each
		// extra one at its key.
		for _, extra := range set[1:] {
			errs = append(errs, field.Forbidden(spec.VOL002, p.Child(extra),
				"a volume has exactly one source: emptyDir, hostPath or shared; "+strings.Join(set, " and ")+" are set").AtKey())
		}
	}
	return errs
}

func validateEmptyDir(e *v1alpha1.EmptyDirVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if e.Medium != "" && e.Medium != "Memory" {
		errs = append(errs, field.NotSupported(spec.MAN002, p.Child("medium"), e.Medium, []string{`""`, "Memory"}))
	}
	if e.SizeLimit != nil {
		if _, err := e.SizeLimit.Bytes(); err != nil {
			errs = append(errs, field.Invalid(spec.RES001, p.Child("sizeLimit"), string(*e.SizeLimit), err.Error()))
		}
	}
	return errs
}

func validateHostPath(h *v1alpha1.HostPathVolumeSource, p *field.Path) field.ErrorList {
	pp := p.Child("path")
	switch {
	case h.Path == "":
		return field.ErrorList{field.Required(spec.MAN003, pp, "a hostPath volume needs a path")}
	case !strings.HasPrefix(h.Path, "/"):
		return field.ErrorList{field.Invalid(spec.VOL003, pp, h.Path, "must be an absolute path")}
	case path.Clean(h.Path) != h.Path:
		return field.ErrorList{field.Invalid(spec.VOL003, pp, h.Path,
			"must be a clean path (no '.', '..', repeated or trailing '/'), e.g. "+path.Clean(h.Path))}
	}
	return nil
}

func validateShared(s *v1alpha1.SharedVolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	if s.Name == "" {
		errs = append(errs, field.Required(spec.MAN003, np, "a shared volume needs a name"))
	} else if d := dnsLabelProblem(s.Name); d != "" {
		errs = append(errs, field.Invalid(spec.VOL003, np, s.Name, d))
	}
	if s.ReclaimPolicy != "" {
		if e := enumProblem(p.Child("reclaimPolicy"), s.ReclaimPolicy, v1alpha1.ReclaimPolicyRetain, v1alpha1.ReclaimPolicyDelete); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// validateVolumeMounts checks that each mount names a declared volume (VOL-001), that mount
// paths are absolute and unique within the container (VOL-002) and that no runtime is asked to
// mount over what it must set up itself (VOL-014).
func validateVolumeMounts(ms []v1alpha1.VolumeMount, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	var paths map[string]bool
	for i := range ms {
		m := &ms[i]
		mp := p.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(spec.MAN003, mp.Child("name"), "a volume mount names a volume"))
		} else if !volumes[m.Name] {
			errs = append(errs, field.NotFound(spec.VOL001, mp.Child("name"), m.Name, "no volume of this name is declared in spec.volumes"))
		}
		pp := mp.Child("mountPath")
		switch {
		case m.MountPath == "":
			errs = append(errs, field.Required(spec.MAN003, pp, "a volume mount needs a mountPath"))
			continue
		case !strings.HasPrefix(m.MountPath, "/"):
			errs = append(errs, field.Invalid(spec.VOL002, pp, m.MountPath, "must be an absolute path"))
		}
		if paths == nil {
			paths = make(map[string]bool, len(ms))
		}
		if d := MountPathProblem(m.MountPath); d != "" {
			errs = append(errs, field.Invalid(spec.VOL014, pp, m.MountPath, d))
		}
		clean := path.Clean(m.MountPath)
		if paths[clean] {
			errs = append(errs, field.Duplicate(spec.VOL002, pp, m.MountPath, "mount paths must be unique within a container"))
		}
		paths[clean] = true
	}
	return errs
}

// MountPathProblem returns why an absolute mountPath can never be mounted (VOL-014), or "": once
// cleaned it is the container's root (`/`, `/..`), its /dev (the runtime's device nodes: a mount
// below it, such as /dev/shm, is fine), or /proc or a path below it (the runtime mounts procfs
// there, and OCI runtimes refuse mounts inside it).
func MountPathProblem(p string) string {
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	switch c := path.Clean(p); {
	case c == "/":
		return "cannot mount a volume over the container's root directory"
	case c == "/dev":
		return "cannot mount a volume over /dev, where the runtime creates the container's devices (a path below it, such as /dev/shm, can be mounted)"
	case c == "/proc" || strings.HasPrefix(c, "/proc/"):
		return "cannot mount a volume at /proc or below it: the runtime mounts the container's procfs there"
	}
	return ""
}
