package kubernetes

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// Limits and defaults the API server applies.
const (
	defaultGracePeriod   = 30 // seconds, when terminationGracePeriodSeconds is unset
	cronJobNameMaxLength = 52 // a CronJob's name plus the 11 characters its Jobs add
	jobNameMaxLength     = 63 // a Job's name is the value of its pods' job-name label
	maxRestartRules      = 20
	maxRestartExitCodes  = 255
	maxPort              = 65535
)

// Validate reads a document's value as Kubernetes objects and returns every finding of the
// Kubernetes profile: the schema of the API types (KUBE-001 to KUBE-005), what the API server's
// validation rejects (KUBE-006 to KUBE-013) and the lifecycle advice (KUBE-014 to KUBE-016).
func Validate(value any) field.ErrorList {
	objs, errs := Decode(value, Newest())
	for _, o := range objs {
		errs = append(errs, ValidateObject(o)...)
	}
	return errs
}

// ValidateObject runs the API server's checks and the lifecycle checks on one decoded object.
func ValidateObject(o *Object) field.ErrorList {
	var errs field.ErrorList
	t := o.Template()
	meta, metaPath := objectMeta(o)
	errs = append(errs, validateObjectMeta(o.Kind, meta, metaPath, true)...)
	if t == nil { // a ReplicationController without a template
		return append(errs, field.Required(ruleRequired, o.Path.Child("spec", "template"), "a "+o.Kind+" requires a pod template"))
	}
	if o.Kind != "Pod" {
		errs = append(errs, validateObjectMeta(o.Kind, t.Meta, t.MetaPath, false)...)
		errs = append(errs, validateController(o, t)...)
	}
	errs = append(errs, validatePodSpec(t)...)
	errs = append(errs, lifecycleAdvice(t)...)
	return errs
}

// objectMeta returns the object's own metadata and its path.
func objectMeta(o *Object) (*ObjectMeta, *field.Path) {
	rv := reflect.ValueOf(o.Value).Elem()
	m := rv.FieldByName("ObjectMeta").Addr().Interface().(*ObjectMeta)
	return m, o.Path.Child("metadata")
}

// validateObjectMeta checks names, labels and annotations (KUBE-006). top is false for a pod
// template's metadata, which needs no name.
func validateObjectMeta(kind string, m *ObjectMeta, p *field.Path, top bool) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	switch {
	case m.Name == "" && m.GenerateName == "" && top:
		errs = append(errs, field.Required(ruleMetadata, np, "name or generateName is required"))
	case m.Name != "" && top:
		if d := validation.DNSSubdomainProblem(m.Name); d != "" {
			errs = append(errs, field.Invalid(ruleMetadata, np, m.Name, d))
		} else if limit := nameLimit(kind); limit > 0 && len(m.Name) > limit {
			errs = append(errs, field.Invalid(ruleMetadata, np, m.Name,
				fmt.Sprintf("a %s name must be at most %d characters (is %d)", kind, limit, len(m.Name))))
		}
	}
	if m.GenerateName != "" {
		// The server appends five characters; what is given must be a subdomain prefix.
		if d := validation.DNSSubdomainProblem(strings.TrimSuffix(m.GenerateName, "-") + "-x"); d != "" {
			errs = append(errs, field.Invalid(ruleMetadata, p.Child("generateName"), m.GenerateName, d))
		}
	}
	if m.Namespace != "" {
		if d := validation.DNSLabelProblem(m.Namespace); d != "" {
			errs = append(errs, field.Invalid(ruleMetadata, p.Child("namespace"), m.Namespace, d))
		}
	}
	errs = append(errs, validation.ValidateLabels(ruleMetadata, m.Labels, p.Child("labels"))...)
	errs = append(errs, validation.ValidateAnnotations(ruleMetadata, m.Annotations, p.Child("annotations"))...)
	return errs
}

func nameLimit(kind string) int {
	switch kind {
	case "CronJob":
		return cronJobNameMaxLength
	case "Job":
		return jobNameMaxLength
	}
	return 0
}

// containerKind is the role a container plays in its pod.
type containerKind int

const (
	kindInit containerKind = iota
	kindSidecar
	kindRegular
	kindEphemeral
)

func (k containerKind) String() string {
	return [...]string{"init containers", "sidecar containers", "containers", "ephemeral containers"}[k]
}

// isSidecar reports whether an init container is a sidecar (restartPolicy Always, KEP-753).
func isSidecar(c *Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == "Always"
}

// each calls f for every container of the pod, ephemeral ones as their common part.
func each(t *Template, f func(c *Container, kind containerKind, p *field.Path)) {
	for i := range t.Spec.InitContainers {
		c := &t.Spec.InitContainers[i]
		k := kindInit
		if isSidecar(c) {
			k = kindSidecar
		}
		f(c, k, t.Path.Child("initContainers").Index(i))
	}
	for i := range t.Spec.Containers {
		f(&t.Spec.Containers[i], kindRegular, t.Path.Child("containers").Index(i))
	}
	for i := range t.Spec.EphemeralContainers {
		c := Container(t.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		f(&c, kindEphemeral, t.Path.Child("ephemeralContainers").Index(i))
	}
}

func gracePeriod(s *PodSpec) int64 {
	if s.TerminationGracePeriodSeconds != nil {
		return *s.TerminationGracePeriodSeconds
	}
	return defaultGracePeriod
}

// validatePodSpec runs the API server's checks of a pod's spec.
func validatePodSpec(t *Template) field.ErrorList {
	s := t.Spec
	var errs field.ErrorList
	if len(s.Containers) == 0 {
		errs = append(errs, field.Required(ruleContainers, t.Path.Child("containers"), "a pod needs at least one container"))
	}
	volErrs, volumes := validateVolumes(s.Volumes, t.Path.Child("volumes"))
	errs = append(errs, volErrs...)
	for _, name := range t.ClaimVolumes {
		volumes[name] = true
	}
	hostPaths := map[string]bool{}
	for _, v := range s.Volumes {
		hostPaths[v.Name] = v.HostPath != nil
	}
	names := map[string]string{}
	hostPorts := map[string]string{}
	grace := gracePeriod(s)
	each(t, func(c *Container, kind containerKind, p *field.Path) {
		errs = append(errs, validateContainerName(c, kind, names, p)...)
		errs = append(errs, validatePorts(c, kind, hostPorts, p)...)
		errs = append(errs, validateEnv(c.Env, p.Child("env"))...)
		errs = append(errs, validateMounts(c, volumes, hostPaths, p)...)
		errs = append(errs, validateProbesAndHooks(c, kind, grace, p)...)
		errs = append(errs, validateContainerRestart(c, kind, p)...)
		errs = append(errs, validateStopSignal(s, c, p)...)
		errs = append(errs, validateHostNetworkPorts(s, c, p)...)
		errs = append(errs, validateResources(&c.Resources, p.Child("resources"))...)
		errs = append(errs, validateSecurityContext(c.SecurityContext, p.Child("securityContext"))...)
	})
	errs = append(errs, validateResources(s.Resources, t.Path.Child("resources"))...)
	errs = append(errs, validatePodSecurityContext(s.SecurityContext, t.Path.Child("securityContext"))...)
	errs = append(errs, validateTolerations(s.Tolerations, t.Path.Child("tolerations"))...)
	errs = append(errs, validateTopologySpread(s.TopologySpreadConstraints, t.Path.Child("topologySpreadConstraints"))...)
	errs = append(errs, validatePodRestartPolicy(t)...)
	if g := s.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, field.Invalid(ruleType, t.Path.Child("terminationGracePeriodSeconds"), *g, "must not be negative"))
	}
	if d := s.ActiveDeadlineSeconds; d != nil && *d < 1 {
		errs = append(errs, field.Invalid(ruleType, t.Path.Child("activeDeadlineSeconds"), *d, "must be at least 1"))
	}
	return errs
}

// validateContainerName checks a container's name and image (KUBE-007): names are DNS labels,
// unique across init, regular and ephemeral containers; init and regular containers need an
// image.
func validateContainerName(c *Container, kind containerKind, names map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	np := p.Child("name")
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(ruleContainers, np, "every container needs a name"))
	case validation.DNSLabelProblem(c.Name) != "":
		errs = append(errs, field.Invalid(ruleContainers, np, c.Name, validation.DNSLabelProblem(c.Name)))
	case names[c.Name] != "":
		errs = append(errs, field.Duplicate(ruleContainers, np, c.Name,
			"container names must be unique across initContainers, containers and ephemeralContainers; first used at "+names[c.Name]))
	default:
		names[c.Name] = np.String()
	}
	if kind != kindEphemeral && strings.TrimSpace(c.Image) == "" {
		errs = append(errs, field.Required(ruleContainers, p.Child("image"), "the API server requires an image for every init and regular container"))
	} else if c.Image != strings.TrimSpace(c.Image) {
		errs = append(errs, field.Invalid(ruleContainers, p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
	}
	return errs
}

// validateEnv checks environment variable names: not empty, printable ASCII without '='.
func validateEnv(env []EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range env {
		np := p.Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(ruleContainers, np, "every environment variable needs a name"))
			continue
		}
		for _, r := range e.Name {
			if r < ' ' || r > '~' || r == '=' {
				errs = append(errs, field.Invalid(ruleContainers, np, e.Name, "must consist of printable ASCII characters other than '='"))
				break
			}
		}
	}
	return errs
}

// validatePorts checks container ports (KUBE-008): numbers in range, names that are IANA
// service names unique in the container, host ports not taken twice in the pod. Ephemeral
// containers may not declare ports.
func validatePorts(c *Container, kind containerKind, hostPorts map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kind == kindEphemeral && len(c.Ports) > 0 {
		return field.ErrorList{field.Forbidden(rulePorts, p.Child("ports"), "ephemeral containers may not declare ports")}
	}
	names := map[string]bool{}
	for i, port := range c.Ports {
		pp := p.Child("ports").Index(i)
		if port.ContainerPort < 1 || port.ContainerPort > maxPort {
			errs = append(errs, field.Invalid(rulePorts, pp.Child("containerPort"), port.ContainerPort, "must be between 1 and 65535"))
		}
		if port.HostPort != 0 && (port.HostPort < 1 || port.HostPort > maxPort) {
			errs = append(errs, field.Invalid(rulePorts, pp.Child("hostPort"), port.HostPort, "must be between 1 and 65535"))
		}
		if port.Name != "" {
			if d := validation.PortNameProblem(port.Name); d != "" {
				errs = append(errs, field.Invalid(rulePorts, pp.Child("name"), port.Name, d))
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(rulePorts, pp.Child("name"), port.Name, "port names must be unique within a container"))
			}
			names[port.Name] = true
		}
		if port.HostPort > 0 {
			proto := string(port.Protocol)
			if proto == "" {
				proto = "TCP"
			}
			key := fmt.Sprintf("%s/%d/%s", port.HostIP, port.HostPort, proto)
			if first, taken := hostPorts[key]; taken {
				errs = append(errs, field.Duplicate(rulePorts, pp.Child("hostPort"), port.HostPort, "host port and protocol already taken at "+first))
			} else {
				hostPorts[key] = pp.Child("hostPort").String()
			}
		}
	}
	return errs
}

// validateVolumes checks volume names and sources (KUBE-009) and returns the declared names
// (mapped to whether the volume is a persistentVolumeClaim, which devices need).
func validateVolumes(vols []Volume, p *field.Path) (field.ErrorList, map[string]bool) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range vols {
		v := &vols[i]
		vp := p.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(ruleVolumes, vp.Child("name"), "every volume needs a name"))
		case validation.DNSLabelProblem(v.Name) != "":
			errs = append(errs, field.Invalid(ruleVolumes, vp.Child("name"), v.Name, validation.DNSLabelProblem(v.Name)))
		default:
			if _, dup := names[v.Name]; dup {
				errs = append(errs, field.Duplicate(ruleVolumes, vp.Child("name"), v.Name, "volume names must be unique"))
			}
			names[v.Name] = v.PersistentVolumeClaim != nil
		}
		if n := len(volumeSources(&v.VolumeSource)); n > 1 {
			errs = append(errs, field.Forbidden(ruleVolumes, vp, fmt.Sprintf("may not specify more than one volume type (has %s)", strings.Join(volumeSources(&v.VolumeSource), ", "))))
		}
	}
	return errs, names
}

// volumeSources lists the JSON names of the sources a volume sets.
func volumeSources(s *VolumeSource) []string {
	var out []string
	rv := reflect.ValueOf(s).Elem()
	for i := range rv.NumField() {
		if !rv.Field(i).IsNil() {
			name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// validateMounts checks volume mounts and devices (KUBE-009): they name declared volumes, mount
// paths are unique in the container, subPath stays inside the volume; and that no mount path is
// one a runtime can never mount (VOL-014).
func validateMounts(c *Container, volumes, hostPaths map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if _, ok := volumes[m.Name]; !ok && m.Name != "" {
			errs = append(errs, field.NotFound(ruleVolumes, mp.Child("name"), m.Name, "no volume of this name in spec.volumes"))
		}
		// The node's /dev mounted at /dev (a hostPath volume) is left out: CSI drivers such as
		// csi-driver-host-path, which Kubernetes' own e2e tests run, and monitoring agents do it,
		// and runc then leaves /dev to that mount rather than creating its devices; the
		// real-world corpus has seven such DaemonSets and Jobs (validator's realworld test).
		nodeDev := path.Clean(m.MountPath) == "/dev" && hostPaths[m.Name]
		if d := validation.MountPathProblem(m.MountPath); d != "" && !nodeDev {
			errs = append(errs, field.Invalid(ruleMountPath, mp.Child("mountPath"), m.MountPath, d))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(ruleVolumes, mp.Child("mountPath"), "every volume mount needs a mountPath"))
		} else if paths[path.Clean(m.MountPath)] {
			errs = append(errs, field.Duplicate(ruleVolumes, mp.Child("mountPath"), m.MountPath, "must be unique within the container"))
		}
		paths[path.Clean(m.MountPath)] = true
		if m.SubPath != "" && m.SubPathExpr != "" {
			errs = append(errs, field.Forbidden(ruleVolumes, mp.Child("subPathExpr"), "subPath and subPathExpr are mutually exclusive"))
		}
		if d := subPathProblem(m.SubPath); d != "" {
			errs = append(errs, field.Invalid(ruleVolumes, mp.Child("subPath"), m.SubPath, d))
		}
	}
	for i, d := range c.VolumeDevices {
		dp := p.Child("volumeDevices").Index(i)
		pvc, ok := volumes[d.Name]
		switch {
		case !ok && d.Name != "":
			errs = append(errs, field.NotFound(ruleVolumes, dp.Child("name"), d.Name, "no volume of this name in spec.volumes"))
		case ok && !pvc:
			errs = append(errs, field.Invalid(ruleVolumes, dp.Child("name"), d.Name, "a volume device must name a persistentVolumeClaim volume"))
		}
		if paths[path.Clean(d.DevicePath)] {
			errs = append(errs, field.Invalid(ruleVolumes, dp.Child("devicePath"), d.DevicePath, "is also a volume mount's mountPath"))
		}
	}
	return errs
}

func subPathProblem(s string) string {
	if s == "" {
		return ""
	}
	if path.IsAbs(s) {
		return "must be a relative path"
	}
	if slices.Contains(strings.Split(s, "/"), "..") {
		return "must not contain '..'"
	}
	return ""
}

// validateProbesAndHooks checks where probes and hooks may be and what they hold (KUBE-010).
func validateProbesAndHooks(c *Container, kind containerKind, grace int64, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	probes := []struct {
		name string
		pr   *Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}}
	for _, x := range probes {
		if x.pr == nil {
			continue
		}
		pp := p.Child(x.name)
		if kind == kindInit || kind == kindEphemeral {
			errs = append(errs, field.Forbidden(ruleProbes, pp, fmt.Sprintf("may not be set for %s (only for containers and for init containers with restartPolicy Always)", kind)).AtKey())
			continue
		}
		errs = append(errs, validateProbe(x.name, x.pr, pp)...)
	}
	if c.Lifecycle != nil && (kind == kindInit || kind == kindEphemeral) {
		if c.Lifecycle.PostStart != nil || c.Lifecycle.PreStop != nil {
			errs = append(errs, field.Forbidden(ruleProbes, p.Child("lifecycle"), fmt.Sprintf("hooks may not be set for %s (only for containers and for init containers with restartPolicy Always)", kind)).AtKey())
		}
		return errs
	}
	if c.Lifecycle != nil {
		for _, h := range []struct {
			name string
			h    *LifecycleHandler
		}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
			if h.h == nil {
				continue
			}
			hp := p.Child("lifecycle").Child(h.name)
			errs = append(errs, oneHandler(hp, h.h.Exec != nil, h.h.HTTPGet != nil, h.h.TCPSocket != nil, h.h.Sleep != nil)...)
			errs = append(errs, validateExec(h.h.Exec, hp.Child("exec"))...)
			errs = append(errs, validateHTTPGet(h.h.HTTPGet, hp.Child("httpGet"))...)
			if h.h.TCPSocket != nil {
				errs = append(errs, validatePortRef(h.h.TCPSocket.Port, hp.Child("tcpSocket").Child("port"))...)
			}
			if s := h.h.Sleep; s != nil {
				sp := hp.Child("sleep").Child("seconds")
				if s.Seconds < 0 {
					errs = append(errs, field.Invalid(ruleProbes, sp, s.Seconds, "must not be negative"))
				} else if s.Seconds > grace {
					errs = append(errs, field.Invalid(ruleProbes, sp, s.Seconds,
						fmt.Sprintf("must not exceed terminationGracePeriodSeconds (%d s)", grace)))
				}
			}
		}
	}
	return errs
}

func validateProbe(name string, pr *Probe, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	h := &pr.ProbeHandler
	errs = append(errs, oneHandler(p, h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.GRPC != nil)...)
	errs = append(errs, validateExec(h.Exec, p.Child("exec"))...)
	errs = append(errs, validateHTTPGet(h.HTTPGet, p.Child("httpGet"))...)
	if h.TCPSocket != nil {
		errs = append(errs, validatePortRef(h.TCPSocket.Port, p.Child("tcpSocket").Child("port"))...)
	}
	if h.GRPC != nil && (h.GRPC.Port < 1 || h.GRPC.Port > maxPort) {
		errs = append(errs, field.Invalid(ruleProbes, p.Child("grpc").Child("port"), h.GRPC.Port, "must be between 1 and 65535"))
	}
	for _, n := range []struct {
		name string
		v    int32
	}{{"initialDelaySeconds", pr.InitialDelaySeconds}, {"timeoutSeconds", pr.TimeoutSeconds}, {"periodSeconds", pr.PeriodSeconds},
		{"successThreshold", pr.SuccessThreshold}, {"failureThreshold", pr.FailureThreshold}} {
		if n.v < 0 {
			errs = append(errs, field.Invalid(ruleProbes, p.Child(n.name), n.v, "must not be negative"))
		}
	}
	if name != "readinessProbe" && pr.SuccessThreshold > 1 {
		errs = append(errs, field.Invalid(ruleProbes, p.Child("successThreshold"), pr.SuccessThreshold, "must be 1 for a "+name))
	}
	if g := pr.TerminationGracePeriodSeconds; g != nil {
		switch {
		case name == "readinessProbe":
			errs = append(errs, field.Invalid(ruleProbes, p.Child("terminationGracePeriodSeconds"), *g, "must not be set for a readinessProbe"))
		case *g <= 0:
			errs = append(errs, field.Invalid(ruleProbes, p.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
		}
	}
	return errs
}

// oneHandler reports a probe or hook without exactly one action.
func oneHandler(p *field.Path, set ...bool) field.ErrorList {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	switch {
	case n == 0:
		return field.ErrorList{field.Required(ruleProbes, p, "must specify a handler type (exec, httpGet, tcpSocket, grpc or sleep)").AtKey()}
	case n > 1:
		return field.ErrorList{field.Forbidden(ruleProbes, p, "may not specify more than one handler type").AtKey()}
	}
	return nil
}

func validateExec(e *ExecAction, p *field.Path) field.ErrorList {
	if e != nil && len(e.Command) == 0 {
		return field.ErrorList{field.Required(ruleProbes, p.Child("command"), "an exec action needs a command")}
	}
	return nil
}

func validateHTTPGet(h *HTTPGetAction, p *field.Path) field.ErrorList {
	if h == nil {
		return nil
	}
	return validatePortRef(h.Port, p.Child("port"))
}

// validatePortRef checks a port given as a number or as the name of a container port.
func validatePortRef(v IntOrString, p *field.Path) field.ErrorList {
	if v.IsString {
		if d := validation.PortNameProblem(v.StrVal); d != "" {
			return field.ErrorList{field.Invalid(ruleProbes, p, v.StrVal, d)}
		}
		return nil
	}
	if v.IntVal < 1 || v.IntVal > maxPort {
		return field.ErrorList{field.Invalid(ruleProbes, p, v.IntVal, "must be between 1 and 65535")}
	}
	return nil
}

// validateContainerRestart checks per-container restart policies and rules (KUBE-011,
// KEP-753 and KEP-5307).
func validateContainerRestart(c *Container, kind containerKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if kind == kindEphemeral {
		if c.RestartPolicy != nil {
			errs = append(errs, field.Forbidden(ruleRestart, p.Child("restartPolicy"), "may not be set for ephemeral containers").AtKey())
		}
		if len(c.RestartPolicyRules) > 0 {
			errs = append(errs, field.Forbidden(ruleRestart, p.Child("restartPolicyRules"), "may not be set for ephemeral containers").AtKey())
		}
		return errs
	}
	rp := p.Child("restartPolicyRules")
	if len(c.RestartPolicyRules) > 0 && c.RestartPolicy == nil {
		errs = append(errs, field.Required(ruleRestart, p.Child("restartPolicy"), "a container with restartPolicyRules must set restartPolicy explicitly"))
	}
	if len(c.RestartPolicyRules) > maxRestartRules {
		errs = append(errs, field.TooMany(ruleRestart, rp, fmt.Sprintf("at most %d rules (has %d)", maxRestartRules, len(c.RestartPolicyRules))))
	}
	for i, r := range c.RestartPolicyRules {
		ep := rp.Index(i).Child("exitCodes")
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(ruleRestart, ep, "a restart rule needs exitCodes"))
			continue
		}
		if n := len(r.ExitCodes.Values); n > maxRestartExitCodes {
			errs = append(errs, field.TooMany(ruleRestart, ep.Child("values"), fmt.Sprintf("at most %d values (has %d)", maxRestartExitCodes, n)))
		}
		for j, v := range r.ExitCodes.Values {
			if v < 0 || v > 255 {
				errs = append(errs, field.Invalid(ruleRestart, ep.Child("values").Index(j), v, "an exit code is between 0 and 255"))
			}
		}
	}
	return errs
}

// validatePodRestartPolicy checks the pod's restartPolicy against what its owner accepts
// (KUBE-011): a Deployment, StatefulSet, DaemonSet or ReplicaSet keeps its pods running
// (Always only); a Job's pods run to completion (Never or OnFailure, set explicitly).
func validatePodRestartPolicy(t *Template) field.ErrorList {
	p := t.Path.Child("restartPolicy")
	rp := t.Spec.RestartPolicy
	switch t.Owner {
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController":
		if rp != "" && rp != "Always" {
			e := field.NotSupported(ruleRestart, p, string(rp), []string{"Always"})
			e.Detail += " (a " + t.Owner + " keeps its pods running)"
			return field.ErrorList{e}
		}
	case "Job", "CronJob":
		if rp == "" {
			return field.ErrorList{field.Required(ruleRestart, p, "a Job's pod template must set restartPolicy to Never or OnFailure")}
		}
		if rp == "Always" {
			return field.ErrorList{field.NotSupported(ruleRestart, p, string(rp), []string{"OnFailure", "Never"})}
		}
	}
	return nil
}

// validateStopSignal checks container stop signals (KUBE-013, KEP-4960): they need the pod's
// operating system, and Windows knows only SIGTERM and SIGKILL.
func validateStopSignal(s *PodSpec, c *Container, p *field.Path) field.ErrorList {
	if c.Lifecycle == nil || c.Lifecycle.StopSignal == nil {
		return nil
	}
	sp := p.Child("lifecycle").Child("stopSignal")
	sig := string(*c.Lifecycle.StopSignal)
	switch {
	case s.OS == nil || s.OS.Name == "":
		return field.ErrorList{field.Forbidden(ruleStopSignal, sp, "may only be set for a pod with spec.os.name").AtKey()}
	case s.OS.Name == "windows" && sig != "SIGTERM" && sig != "SIGKILL":
		return field.ErrorList{field.NotSupported(ruleStopSignal, sp, sig, []string{"SIGTERM", "SIGKILL"})}
	}
	return nil
}
