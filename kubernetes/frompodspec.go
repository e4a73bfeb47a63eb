package kubernetes

import (
	"fmt"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/validation/field"
)

// FromPodspec converts a podspec Pod (as written, not defaulted) into a Kubernetes v1 Pod. The
// findings name, at their paths in the podspec document, each field Kubernetes has no field for
// (KUBE-018): an exit policy other than All, restartBackoff, dependsOn, notifiers, defer
// containers, shared volumes, a pids resource. A container stop signal becomes
// lifecycle.stopSignal, which Kubernetes accepts only with spec.os.name, so the Pod then says
// os linux (podspec runs Linux containers).
func FromPodspec(p *v1alpha1.Pod) (*Pod, field.ErrorList) {
	var errs field.ErrorList
	lost := func(path *field.Path, why string) {
		errs = append(errs, field.Forbidden(ruleNoKubernetes, path, why).AtKey())
	}
	out := &Pod{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "Pod"}}
	out.ObjectMeta = ObjectMeta{Name: p.Metadata.Name, Labels: p.Metadata.Labels, Annotations: p.Metadata.Annotations}
	if p.Metadata.Generation != 0 {
		lost(field.NewPath("metadata", "generation"), "the generation is the runtime's; Kubernetes sets its own")
	}
	sp := field.NewPath("spec")
	s := &p.Spec
	switch s.ExitPolicy {
	case v1alpha1.ExitPolicyAny, v1alpha1.ExitPolicyAnyFailure:
		lost(sp.Child("exitPolicy"), fmt.Sprintf("Kubernetes ends a pod when all its containers have ended (exit policy All); exitPolicy %s has no Kubernetes field", s.ExitPolicy))
	}
	if s.RestartBackoff != nil {
		lost(sp.Child("restartBackoff"), "Kubernetes' restart back-off is the kubelet's (10 s doubling to 300 s), not the pod's; restartBackoff has no Kubernetes field")
	}
	ks := &out.Spec
	if s.RestartPolicy != "" {
		ks.RestartPolicy = RestartPolicy(s.RestartPolicy)
	}
	ks.TerminationGracePeriodSeconds = s.TerminationGracePeriodSeconds
	ks.ActiveDeadlineSeconds = s.ActiveDeadlineSeconds
	shared := map[string]bool{}
	for i, v := range s.Volumes {
		kv := Volume{Name: v.Name}
		switch {
		case v.EmptyDir != nil:
			kv.EmptyDir = &EmptyDirVolumeSource{Medium: v.EmptyDir.Medium}
			if v.EmptyDir.SizeLimit != nil {
				q := Quantity(*v.EmptyDir.SizeLimit)
				kv.EmptyDir.SizeLimit = &q
			}
		case v.HostPath != nil:
			kv.HostPath = &HostPathVolumeSource{Path: v.HostPath.Path}
		case v.Shared != nil:
			shared[v.Name] = true
			lost(sp.Child("volumes").Index(i).Child("shared"), "Kubernetes shares storage between pods through PersistentVolumeClaims, which podspec cannot create; the shared volume and its mounts are not carried over")
			continue
		}
		ks.Volumes = append(ks.Volumes, kv)
	}
	for i := range s.InitContainers {
		ks.InitContainers = append(ks.InitContainers, containerFromPodspec(&s.InitContainers[i], shared, sp.Child("initContainers").Index(i), lost))
	}
	for i := range s.Containers {
		ks.Containers = append(ks.Containers, containerFromPodspec(&s.Containers[i], shared, sp.Child("containers").Index(i), lost))
	}
	for i := range s.DeferContainers {
		lost(sp.Child("deferContainers").Index(i), fmt.Sprintf("Kubernetes has no containers that run when a pod ends; defer container %q is not carried over", s.DeferContainers[i].Name))
	}
	for _, c := range append(append([]Container{}, ks.InitContainers...), ks.Containers...) {
		if c.Lifecycle != nil && c.Lifecycle.StopSignal != nil {
			ks.OS = &PodOS{Name: "linux"}
		}
	}
	if p.Status != nil {
		lost(field.NewPath("status"), "a status is the runtime's; not carried over")
	}
	return out, errs
}

func containerFromPodspec(c *v1alpha1.Container, shared map[string]bool, p *field.Path, lost func(*field.Path, string)) Container {
	out := Container{Name: c.Name, Image: c.Image, ImagePullPolicy: PullPolicy(c.ImagePullPolicy), Command: c.Command, Args: c.Args, WorkingDir: c.WorkingDir}
	for _, e := range c.Env {
		out.Env = append(out.Env, EnvVar{Name: e.Name, Value: e.Value})
	}
	if c.RestartPolicy != nil {
		rp := ContainerRestartPolicy(*c.RestartPolicy)
		out.RestartPolicy = &rp
	}
	if r := c.Resources; r != nil {
		list := func(l v1alpha1.ResourceList, at *field.Path) map[string]Quantity {
			if len(l) == 0 {
				return nil
			}
			kl := map[string]Quantity{}
			names := make(map[string]bool, len(l))
			for n := range l {
				names[string(n)] = true
			}
			for _, name := range sortedKeys(names) {
				if v1alpha1.ResourceName(name) == v1alpha1.ResourcePIDs {
					lost(at.Key(name), "Kubernetes limits process IDs per node or pod (kubelet podPidsLimit), not per container; not carried over")
					continue
				}
				kl[name] = Quantity(l[v1alpha1.ResourceName(name)])
			}
			return kl
		}
		out.Resources.Limits = list(r.Limits, p.Child("resources", "limits"))
		out.Resources.Requests = list(r.Requests, p.Child("resources", "requests"))
	}
	for _, rp := range c.ResizePolicy {
		out.ResizePolicy = append(out.ResizePolicy, ContainerResizePolicy{ResourceName: string(rp.ResourceName), RestartPolicy: string(rp.RestartPolicy)})
	}
	for i, m := range c.VolumeMounts {
		if shared[m.Name] {
			lost(p.Child("volumeMounts").Index(i), fmt.Sprintf("mounts shared volume %q, which is not carried over", m.Name))
			continue
		}
		out.VolumeMounts = append(out.VolumeMounts, VolumeMount{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly})
	}
	for _, cp := range c.Ports {
		port := ContainerPort{Name: cp.Name, ContainerPort: cp.ContainerPort, Protocol: Protocol(cp.Protocol)}
		if cp.HostPort != 0 {
			// podspec's default hostIP is written out: Kubernetes' is every address (NET-005).
			port.HostPort, port.HostIP = cp.HostPort, cp.PublishedHostIP()
		}
		out.Ports = append(out.Ports, port)
	}
	out.StartupProbe = probeFromPodspec(c.StartupProbe)
	out.ReadinessProbe = probeFromPodspec(c.ReadinessProbe)
	out.LivenessProbe = probeFromPodspec(c.LivenessProbe)
	if c.Lifecycle != nil || c.StopSignal != "" {
		out.Lifecycle = &Lifecycle{}
		if c.Lifecycle != nil {
			out.Lifecycle.PostStart = handlerFromPodspec(c.Lifecycle.PostStart)
			out.Lifecycle.PreStop = handlerFromPodspec(c.Lifecycle.PreStop)
		}
		if c.StopSignal != "" {
			sig := Signal(c.StopSignal)
			out.Lifecycle.StopSignal = &sig
		}
	}
	if sc := c.SecurityContext; sc != nil {
		out.SecurityContext = &SecurityContext{
			RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, RunAsNonRoot: sc.RunAsNonRoot,
			ReadOnlyRootFilesystem: sc.ReadOnlyRootFilesystem, AllowPrivilegeEscalation: sc.AllowPrivilegeEscalation,
		}
		if caps := sc.Capabilities; caps != nil {
			out.SecurityContext.Capabilities = &Capabilities{}
			for _, a := range caps.Add {
				out.SecurityContext.Capabilities.Add = append(out.SecurityContext.Capabilities.Add, string(a))
			}
			for _, d := range caps.Drop {
				out.SecurityContext.Capabilities.Drop = append(out.SecurityContext.Capabilities.Drop, string(d))
			}
		}
	}
	for i, n := range c.Notifiers {
		lost(p.Child("notifiers").Index(i), fmt.Sprintf("Kubernetes has no named actions on containers; notifier %q is not carried over", n.Name))
	}
	for i, d := range c.DependsOn {
		lost(p.Child("dependsOn").Index(i), fmt.Sprintf("Kubernetes starts a pod's regular containers together; the dependency on %q is not carried over (a sidecar with a startupProbe orders starts in Kubernetes)", d.Name))
	}
	return out
}

func probeFromPodspec(pr *v1alpha1.Probe) *Probe {
	if pr == nil {
		return nil
	}
	out := &Probe{InitialDelaySeconds: pr.InitialDelaySeconds, PeriodSeconds: pr.PeriodSeconds, TimeoutSeconds: pr.TimeoutSeconds,
		SuccessThreshold: pr.SuccessThreshold, FailureThreshold: pr.FailureThreshold}
	if pr.Exec != nil {
		out.Exec = &ExecAction{Command: pr.Exec.Command}
	}
	out.HTTPGet = httpGetFromPodspec(pr.HTTPGet)
	if t := pr.TCPSocket; t != nil {
		out.TCPSocket = &TCPSocketAction{Port: portFromPodspec(t.Port), Host: t.Host}
	}
	if g := pr.GRPC; g != nil {
		out.GRPC = &GRPCAction{Port: g.Port, Service: g.Service}
	}
	return out
}

func httpGetFromPodspec(h *v1alpha1.HTTPGetAction) *HTTPGetAction {
	if h == nil {
		return nil
	}
	out := &HTTPGetAction{Path: h.Path, Port: portFromPodspec(h.Port), Host: h.Host, Scheme: URIScheme(h.Scheme)}
	for _, hh := range h.HTTPHeaders {
		out.HTTPHeaders = append(out.HTTPHeaders, HTTPHeader{Name: hh.Name, Value: hh.Value})
	}
	return out
}

func portFromPodspec(p v1alpha1.PortRef) IntOrString {
	if p.IsNamed() {
		return IntOrString{IsString: true, StrVal: p.Name}
	}
	return IntOrString{IntVal: p.Number}
}

func handlerFromPodspec(h *v1alpha1.LifecycleHandler) *LifecycleHandler {
	if h == nil {
		return nil
	}
	out := &LifecycleHandler{}
	if h.Exec != nil {
		out.Exec = &ExecAction{Command: h.Exec.Command}
	}
	if h.Sleep != nil {
		out.Sleep = &SleepAction{Seconds: h.Sleep.Seconds}
	}
	out.HTTPGet = httpGetFromPodspec(h.HTTPGet)
	return out
}
