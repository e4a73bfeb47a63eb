package kubernetes

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// Converted is one pod converted from a Kubernetes object.
type Converted struct {
	// Pod is the podspec Pod.
	Pod *v1alpha1.Pod
	// From is the object it came from.
	From *Object
}

// ToPodspec converts every pod a document carries (a Pod, a workload's pod template, the pods
// of a List) into a podspec Pod. The findings name, at their paths in the document, each field
// that is not carried over (KUBE-017) and, first, every error the Kubernetes profile finds: a
// document with such an error is not converted.
func ToPodspec(value any) ([]Converted, field.ErrorList) {
	objs, errs := Decode(value, Newest())
	for _, o := range objs {
		errs = append(errs, ValidateObject(o)...)
	}
	var refusals field.ErrorList
	for _, e := range errs {
		if e.Severity() == "error" {
			refusals = append(refusals, e)
		}
	}
	if len(refusals) > 0 {
		return nil, refusals
	}
	var out []Converted
	var lost field.ErrorList
	for _, o := range objs {
		c, l := ConvertObject(value, o)
		out = append(out, c)
		lost = append(lost, l...)
	}
	return out, lost
}

// ConvertObject converts the pod of one object that Decode read from value, a document with
// no error of the Kubernetes profile, into a podspec Pod. The findings name each field that is
// not carried over (KUBE-017) at its path in the document.
func ConvertObject(value any, o *Object) (Converted, field.ErrorList) {
	var lost field.ErrorList
	pod := objectToPodspec(o, valueAt(value, o.Path), &lost)
	return Converted{Pod: pod, From: o}, lost
}

// valueAt returns the part of a document's value an object path (nil or items[i]) names.
func valueAt(value any, p *field.Path) any {
	v := value
	for _, t := range p.Tokens() {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			var i int
			fmt.Sscan(t, &i)
			if i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		}
	}
	return v
}

func objectToPodspec(o *Object, v any, errs *field.ErrorList) *v1alpha1.Pod {
	root := newSource(v, o.Path, errs)
	root.skip("apiVersion", "kind")
	pod := &v1alpha1.Pod{TypeMeta: v1alpha1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindPod}}
	if o.Kind == "Pod" {
		pod.Metadata = metaToPodspec(root.obj("metadata"), "")
		pod.Spec = specToPodspec(root.obj("spec"))
		root.done("Pod")
		return pod
	}
	// A workload: the pod is its template, named after the workload.
	owner := root.obj("metadata")
	name := owner.str("name")
	owner.doneWhy(func(k string) string {
		return fmt.Sprintf("the %s's own %s is not the pod's (the template's metadata is carried over); not carried over", o.Kind, k)
	})
	var tmpl *source
	if o.Kind == "PodTemplate" {
		tmpl = root.obj("template")
	} else {
		spec := root.obj("spec")
		if o.Kind == "CronJob" {
			jt := spec.obj("jobTemplate")
			spec.doneWhy(controllerField(o.Kind))
			jt.skip("metadata")
			jt.drop("metadata", "the Job template's metadata is the Job's, not the pod's; not carried over")
			spec = jt.obj("spec")
			jt.doneWhy(controllerField(o.Kind))
		}
		tmpl = spec.obj("template")
		spec.doneWhy(controllerField(o.Kind))
	}
	root.done(o.Kind)
	pod.Metadata = metaToPodspec(tmpl.obj("metadata"), name)
	// A StatefulSet's claim templates are not carried over (a controller field), nor their mounts.
	pod.Spec = specToPodspec(tmpl.obj("spec"), o.Template().ClaimVolumes...)
	tmpl.done("pod template")
	return pod
}

// controllerField explains why a workload's own fields are not carried over.
func controllerField(kind string) func(string) string {
	return func(k string) string {
		return fmt.Sprintf("podspec runs one pod, with no controller around it; the %s's %s is not carried over", kind, k)
	}
}

func metaToPodspec(m *source, fallbackName string) v1alpha1.ObjectMeta {
	var out v1alpha1.ObjectMeta
	if m == nil {
		out.Name = fallbackName
		return out
	}
	out.Name = m.str("name")
	if out.Name == "" {
		out.Name = fallbackName
	}
	if out.Name == "" && m.has("generateName") {
		out.Name = strings.TrimSuffix(m.str("generateName"), "-")
		m.drop("generateName", "podspec has no generated names; the pod is named "+out.Name)
	}
	out.Labels = m.strMap("labels")
	out.Annotations = m.strMap("annotations")
	m.done("metadata")
	return out
}

func specToPodspec(s *source, notCarried ...string) v1alpha1.PodSpec {
	var out v1alpha1.PodSpec
	if s == nil {
		return out
	}
	if rp := s.str("restartPolicy"); rp != "" {
		out.RestartPolicy = v1alpha1.RestartPolicy(rp)
	}
	out.TerminationGracePeriodSeconds = s.int64p("terminationGracePeriodSeconds")
	out.ActiveDeadlineSeconds = s.int64p("activeDeadlineSeconds")
	dropped := map[string]bool{}
	for _, n := range notCarried {
		dropped[n] = true
	}
	for _, v := range s.list("volumes") {
		if vol, ok := volumeToPodspec(v); ok {
			out.Volumes = append(out.Volumes, vol)
		} else {
			dropped[vol.Name] = true
		}
	}
	podSC := podSecurityContextToPodspec(s.obj("securityContext"))
	for _, c := range s.list("initContainers") {
		out.InitContainers = append(out.InitContainers, containerToPodspec(c, dropped, podSC))
	}
	for _, c := range s.list("containers") {
		out.Containers = append(out.Containers, containerToPodspec(c, dropped, podSC))
	}
	s.drop("ephemeralContainers", "ephemeral containers are added to a running pod by the API server; not carried over")
	if os := s.obj("os"); os != nil {
		if os.str("name") != "linux" {
			s.drop("os", "podspec runs Linux containers only")
		}
		os.done("os")
	}
	s.done("Pod spec")
	return out
}

// volumeToPodspec converts a volume of a source podspec has (emptyDir, hostPath); ok is false
// for any other source, which is reported.
func volumeToPodspec(v *source) (v1alpha1.Volume, bool) {
	out := v1alpha1.Volume{Name: v.str("name")}
	defer v.done("volume")
	if e := v.obj("emptyDir"); e != nil {
		out.EmptyDir = &v1alpha1.EmptyDirVolumeSource{Medium: e.str("medium")}
		if q := e.str("sizeLimit"); q != "" {
			sl := v1alpha1.Quantity(q)
			out.EmptyDir.SizeLimit = &sl
		} else if n := e.int64p("sizeLimit"); n != nil {
			sl := v1alpha1.Quantity(fmt.Sprint(*n))
			out.EmptyDir.SizeLimit = &sl
		}
		e.done("emptyDir")
		return out, true
	}
	if h := v.obj("hostPath"); h != nil {
		out.HostPath = &v1alpha1.HostPathVolumeSource{Path: h.normalisedPath("path")}
		h.drop("type", "podspec's hostPath has no type: the path must exist; not carried over")
		h.done("hostPath")
		return out, true
	}
	var kinds []string
	for _, k := range sortedKeys(v.m) {
		if k != "name" {
			kinds = append(kinds, k)
		}
	}
	*v.errs = append(*v.errs, field.Forbidden(ruleNotCarried, v.p, fmt.Sprintf("podspec has emptyDir, hostPath and shared volumes, no %s; volume %q and its mounts are not carried over", strings.Join(kinds, ", "), out.Name)))
	v.skip(kinds...)
	return out, false
}

func containerToPodspec(c *source, droppedVolumes map[string]bool, podSC *v1alpha1.SecurityContext) v1alpha1.Container {
	out := v1alpha1.Container{
		Name: c.str("name"), Image: c.str("image"), Command: c.strs("command"), Args: c.strs("args"),
		WorkingDir: c.str("workingDir"), ImagePullPolicy: v1alpha1.PullPolicy(c.str("imagePullPolicy")),
	}
	if rp := c.str("restartPolicy"); rp != "" {
		p := v1alpha1.RestartPolicy(rp)
		out.RestartPolicy = &p
	}
	c.drop("restartPolicyRules", "podspec restarts by restartPolicy alone; restart rules by exit code (KEP-5307) are not carried over")
	for _, e := range c.list("env") {
		ev := v1alpha1.EnvVar{Name: e.str("name"), Value: e.str("value")}
		if e.has("valueFrom") {
			*e.errs = append(*e.errs, field.Forbidden(ruleNotCarried, e.p, fmt.Sprintf("podspec has no downward API, ConfigMaps or Secrets (valueFrom); the variable %s is not carried over", ev.Name)))
			e.skip(sortedKeys(e.m)...)
			continue
		}
		out.Env = append(out.Env, ev)
		e.done("environment variable")
	}
	if r := c.obj("resources"); r != nil {
		out.Resources = resourcesToPodspec(r)
	}
	for _, rp := range c.list("resizePolicy") {
		out.ResizePolicy = append(out.ResizePolicy, v1alpha1.ContainerResizePolicy{
			ResourceName: v1alpha1.ResourceName(rp.str("resourceName")), RestartPolicy: v1alpha1.ResourceResizeRestartPolicy(rp.str("restartPolicy")),
		})
		rp.done("resize policy")
	}
	for _, m := range c.list("volumeMounts") {
		vm := v1alpha1.VolumeMount{Name: m.str("name"), MountPath: m.str("mountPath"), ReadOnly: m.boolv("readOnly")}
		if droppedVolumes[vm.Name] {
			*m.errs = append(*m.errs, field.Forbidden(ruleNotCarried, m.p, fmt.Sprintf("mounts volume %q, which is not carried over", vm.Name)).AtKey())
			m.skip(sortedKeys(m.m)...)
			continue
		}
		m.done("volume mount")
		out.VolumeMounts = append(out.VolumeMounts, vm)
	}
	for _, cp := range c.list("ports") {
		out.Ports = append(out.Ports, containerPortToPodspec(cp))
		cp.done("container port")
	}
	out.StartupProbe = probeToPodspec(c, "startupProbe")
	out.ReadinessProbe = probeToPodspec(c, "readinessProbe")
	out.LivenessProbe = probeToPodspec(c, "livenessProbe")
	if l := c.obj("lifecycle"); l != nil {
		lc := &v1alpha1.Lifecycle{PostStart: handlerToPodspec(l, "postStart"), PreStop: handlerToPodspec(l, "preStop")}
		if sig := l.str("stopSignal"); sig == "SIGKILL" || sig == "SIGSTOP" {
			l.drop("stopSignal", "podspec stops a container with a signal it can catch; "+sig+" is not carried over ("+spec.STOP001+")")
		} else {
			out.StopSignal = sig
		}
		if lc.PostStart != nil || lc.PreStop != nil {
			out.Lifecycle = lc
		}
		l.done("lifecycle")
	}
	out.SecurityContext = withPodSecurityContext(securityContextToPodspec(c.obj("securityContext")), podSC)
	c.done("Container")
	return out
}

// securityContextToPodspec carries a container's securityContext. allowPrivilegeEscalation
// true is reported, not carried: podspec always sets noNewPrivileges (SEC-001, SEC-020).
func securityContextToPodspec(sc *source) *v1alpha1.SecurityContext {
	if sc == nil {
		return nil
	}
	defer sc.done("securityContext")
	seccompToPodspec(sc)
	out := &v1alpha1.SecurityContext{
		RunAsUser: sc.int64p("runAsUser"), RunAsGroup: sc.int64p("runAsGroup"),
		RunAsNonRoot: sc.boolp("runAsNonRoot"), ReadOnlyRootFilesystem: sc.boolp("readOnlyRootFilesystem"),
	}
	if ape := sc.boolp("allowPrivilegeEscalation"); ape != nil && *ape {
		sc.drop("allowPrivilegeEscalation", "podspec starts every process with noNewPrivileges ("+spec.SEC001+"); allowPrivilegeEscalation true is not carried over ("+spec.SEC020+")")
	} else {
		out.AllowPrivilegeEscalation = ape
	}
	if c := sc.obj("capabilities"); c != nil {
		caps := &v1alpha1.Capabilities{}
		for _, a := range c.strs("add") {
			caps.Add = append(caps.Add, v1alpha1.Capability(a))
		}
		for _, d := range c.strs("drop") {
			caps.Drop = append(caps.Drop, v1alpha1.Capability(d))
		}
		c.done("capabilities")
		if caps.Add != nil || caps.Drop != nil {
			out.Capabilities = caps
		}
	}
	if *out == (v1alpha1.SecurityContext{}) {
		return nil
	}
	return out
}

// podSecurityContextToPodspec reads the pod's securityContext for what podspec takes per
// container: runAsUser, runAsGroup and runAsNonRoot, which Kubernetes applies to every container
// that does not set its own; every other field is reported, not carried.
func podSecurityContextToPodspec(sc *source) *v1alpha1.SecurityContext {
	if sc == nil {
		return nil
	}
	defer sc.doneWhy(func(k string) string {
		return fmt.Sprintf("podspec carries the pod's runAsUser, runAsGroup and runAsNonRoot to each container and has no pod-level %s; not carried over", k)
	})
	seccompToPodspec(sc)
	out := &v1alpha1.SecurityContext{RunAsUser: sc.int64p("runAsUser"), RunAsGroup: sc.int64p("runAsGroup"), RunAsNonRoot: sc.boolp("runAsNonRoot")}
	if *out == (v1alpha1.SecurityContext{}) {
		return nil
	}
	return out
}

// seccompToPodspec reports a seccompProfile: podspec applies its one default profile (moby's,
// docs/runtime.md) to every process, which is what type RuntimeDefault asks for.
func seccompToPodspec(sc *source) {
	p := sc.obj("seccompProfile")
	if p == nil {
		return
	}
	if t := p.str("type"); t == "RuntimeDefault" {
		sc.drop("seccompProfile", "podspec applies its default seccomp profile to every process (docs/runtime.md), as RuntimeDefault asks; not carried over")
	} else {
		sc.drop("seccompProfile", "podspec has only its default seccomp profile (docs/runtime.md); a seccompProfile of type "+t+" is not carried over")
	}
}

// withPodSecurityContext fills what a container's securityContext leaves unset from the pod's
// (runAsUser, runAsGroup, runAsNonRoot), as Kubernetes does.
func withPodSecurityContext(c, pod *v1alpha1.SecurityContext) *v1alpha1.SecurityContext {
	if pod == nil {
		return c
	}
	out := &v1alpha1.SecurityContext{}
	if c != nil {
		*out = *c
	}
	if out.RunAsUser == nil {
		out.RunAsUser = pod.RunAsUser
	}
	if out.RunAsGroup == nil {
		out.RunAsGroup = pod.RunAsGroup
	}
	if out.RunAsNonRoot == nil {
		out.RunAsNonRoot = pod.RunAsNonRoot
	}
	return out
}

func resourcesToPodspec(r *source) *v1alpha1.ResourceRequirements {
	out := &v1alpha1.ResourceRequirements{}
	list := func(k string) v1alpha1.ResourceList {
		l := r.obj(k)
		if l == nil {
			return nil
		}
		rl := v1alpha1.ResourceList{}
		for _, name := range sortedKeys(l.m) {
			if name != "cpu" && name != "memory" {
				l.drop(name, fmt.Sprintf("podspec limits cpu, memory and pids; %s is not carried over", name))
				continue
			}
			switch q := l.m[name].(type) {
			case string:
				rl[v1alpha1.ResourceName(name)] = v1alpha1.Quantity(q)
			default:
				rl[v1alpha1.ResourceName(name)] = v1alpha1.Quantity(fmt.Sprint(q))
			}
			l.skip(name)
		}
		l.done("resource list")
		if len(rl) == 0 {
			return nil
		}
		return rl
	}
	out.Limits = list("limits")
	out.Requests = list("requests")
	r.drop("claims", "podspec has no dynamic resource claims; not carried over")
	r.done("resources")
	if out.Limits == nil && out.Requests == nil {
		return nil
	}
	return out
}

func probeToPodspec(c *source, k string) *v1alpha1.Probe {
	p := c.obj(k)
	if p == nil {
		return nil
	}
	defer p.done("probe")
	out := &v1alpha1.Probe{
		InitialDelaySeconds: p.int32v("initialDelaySeconds"), PeriodSeconds: p.int32v("periodSeconds"),
		TimeoutSeconds: p.int32v("timeoutSeconds"), SuccessThreshold: p.int32v("successThreshold"),
		FailureThreshold: p.int32v("failureThreshold"),
	}
	if e := p.obj("exec"); e != nil {
		out.Exec = &v1alpha1.ExecAction{Command: e.strs("command")}
		e.done("exec action")
	}
	if h := p.obj("httpGet"); h != nil {
		out.HTTPGet = httpGetToPodspec(h)
	}
	if t := p.obj("tcpSocket"); t != nil {
		out.TCPSocket = &v1alpha1.TCPSocketAction{Port: portToPodspec(t, "port"), Host: t.str("host")}
		t.done("tcpSocket action")
	}
	if g := p.obj("grpc"); g != nil {
		out.GRPC = &v1alpha1.GRPCAction{Port: g.int32v("port")}
		if g.has("service") {
			svc := g.str("service")
			out.GRPC.Service = &svc
		}
		g.done("grpc action")
	}
	p.drop("terminationGracePeriodSeconds", "podspec has one grace period per pod; a probe's own is not carried over")
	return out
}

// httpGetToPodspec carries an httpGet handler over.
func httpGetToPodspec(h *source) *v1alpha1.HTTPGetAction {
	out := &v1alpha1.HTTPGetAction{Path: h.str("path"), Port: portToPodspec(h, "port"), Host: h.str("host"), Scheme: v1alpha1.URIScheme(h.str("scheme"))}
	for _, hh := range h.list("httpHeaders") {
		out.HTTPHeaders = append(out.HTTPHeaders, v1alpha1.HTTPHeader{Name: hh.str("name"), Value: hh.str("value")})
		hh.done("HTTP header")
	}
	h.done("httpGet action")
	return out
}

// containerPortToPodspec converts a container port. A hostPort is carried over with its hostIP; one of a
// UDP or SCTP port is not (podspec publishes TCP only, NET-002), nor a hostIP without a hostPort
// (NET-001). A hostPort without hostIP is reported (KUBE-019): Kubernetes publishes it on every
// address of the node, podspec on 127.0.0.1 (NET-005).
func containerPortToPodspec(cp *source) v1alpha1.ContainerPort {
	out := v1alpha1.ContainerPort{Name: cp.str("name"), ContainerPort: cp.int32v("containerPort"), Protocol: v1alpha1.Protocol(cp.str("protocol"))}
	switch {
	case !cp.has("hostPort"):
		cp.drop("hostIP", "a hostIP without a hostPort publishes nothing; not carried over")
	case out.Protocol != "" && out.Protocol != v1alpha1.ProtocolTCP:
		cp.drop("hostPort", fmt.Sprintf("podspec publishes TCP ports only (%s), not %s; hostPort is not carried over", spec.NET002, out.Protocol))
		cp.drop("hostIP", fmt.Sprintf("podspec publishes TCP ports only (%s), not %s; hostIP is not carried over", spec.NET002, out.Protocol))
	default:
		out.HostPort, out.HostIP = cp.int32v("hostPort"), cp.str("hostIP")
		if out.HostIP == "" {
			*cp.errs = append(*cp.errs, field.Invalid(ruleNormalised, cp.p.Child("hostPort"), out.HostPort,
				fmt.Sprintf("carried over without hostIP, which podspec publishes on %s only (%s), where Kubernetes publishes on every address of the node: add hostIP: 0.0.0.0 for that", v1alpha1.DefaultHostIP, spec.NET005)))
		}
	}
	return out
}

// portToPodspec reads a port number or name.
func portToPodspec(s *source, k string) v1alpha1.PortRef {
	if name := s.str(k); name != "" {
		return v1alpha1.PortNamed(name)
	}
	return v1alpha1.PortNumber(s.int32v(k))
}

func handlerToPodspec(l *source, k string) *v1alpha1.LifecycleHandler {
	h := l.obj(k)
	if h == nil {
		return nil
	}
	defer h.done("lifecycle handler")
	out := &v1alpha1.LifecycleHandler{}
	if e := h.obj("exec"); e != nil {
		out.Exec = &v1alpha1.ExecAction{Command: e.strs("command")}
		e.done("exec action")
		return out
	}
	if s := h.obj("sleep"); s != nil {
		if n := s.int64p("seconds"); n != nil {
			out.Sleep = &v1alpha1.SleepAction{Seconds: *n}
		}
		s.done("sleep action")
		return out
	}
	if g := h.obj("httpGet"); g != nil {
		out.HTTPGet = httpGetToPodspec(g)
		return out
	}
	*h.errs = append(*h.errs, field.Forbidden(ruleNotCarried, h.p, "podspec hooks run exec, httpGet or sleep handlers only (Kubernetes does not run a tcpSocket hook either); this "+k+" hook is not carried over").AtKey())
	h.skip(sortedKeys(h.m)...)
	return nil
}
