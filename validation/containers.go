package validation

import (
	"fmt"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ContainerKind is the role a container plays in a pod, as events and statuses name it.
type ContainerKind string

// Container kinds.
const (
	KindInit    ContainerKind = "init"
	KindSidecar ContainerKind = "sidecar"
	KindMain    ContainerKind = "main"
	KindDefer   ContainerKind = "defer"
)

// initKind is the kind of an entry of spec.initContainers: a sidecar or a regular init container.
func initKind(c *v1alpha1.Container) ContainerKind {
	if c.IsSidecar() {
		return KindSidecar
	}
	return KindInit
}

// validateContainerNames checks that every container name is a DNS label and unique across
// initContainers, containers and deferContainers (ID-002). A duplicate is reported on the later
// occurrence.
func validateContainerNames(s *v1alpha1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]*field.Path, len(s.InitContainers)+len(s.Containers)+len(s.DeferContainers))
	check := func(name string, np *field.Path) {
		if name == "" {
			errs = append(errs, field.Required(spec.MAN003, np, "every container needs a name"))
			return
		}
		if d := dnsLabelProblem(name); d != "" {
			errs = append(errs, field.Invalid(spec.ID002, np, name, d))
		}
		if first, dup := seen[name]; dup {
			errs = append(errs, field.Duplicate(spec.ID002, np, name,
				"container names must be unique across initContainers, containers and deferContainers (first used at "+first.String()+")"))
			return
		}
		seen[name] = np
	}
	for i := range s.InitContainers {
		check(s.InitContainers[i].Name, p.Child("initContainers").Index(i).Child("name"))
	}
	for i := range s.Containers {
		check(s.Containers[i].Name, p.Child("containers").Index(i).Child("name"))
	}
	for i := range s.DeferContainers {
		check(s.DeferContainers[i].Name, p.Child("deferContainers").Index(i).Child("name"))
	}
	return errs
}

// validateContainer checks one init, sidecar or main container.
func validateContainer(s *v1alpha1.PodSpec, c *v1alpha1.Container, kind ContainerKind, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateImage(c.Image, p.Child("image"))...)
	errs = append(errs, validateEnv(c.Env, p.Child("env"))...)
	if c.RestartPolicy != nil {
		if e := enumProblem(p.Child("restartPolicy"), *c.RestartPolicy,
			v1alpha1.RestartPolicyAlways, v1alpha1.RestartPolicyOnFailure, v1alpha1.RestartPolicyNever); e != nil {
			errs = append(errs, e)
		}
	}
	if c.StopSignal != "" {
		if e := validateSignal(spec.STOP001, c.StopSignal, p.Child("stopSignal")); e != nil {
			errs = append(errs, e)
		}
	}
	errs = append(errs, validateResources(c.Resources, p.Child("resources"))...)
	errs = append(errs, validateResizePolicy(c.ResizePolicy, p.Child("resizePolicy"))...)
	errs = append(errs, validateVolumeMounts(c.VolumeMounts, volumes, p.Child("volumeMounts"))...)
	errs = append(errs, validatePorts(c.Ports, p.Child("ports"))...)
	errs = append(errs, validateProbes(c, kind, p)...)
	errs = append(errs, validateLifecycle(c, kind, gracePeriod(s), p.Child("lifecycle"))...)
	errs = append(errs, validateNotifiers(c.Notifiers, kind, p.Child("notifiers"))...)
	errs = append(errs, validateSecurityContext(c.SecurityContext, p.Child("securityContext"))...)
	return errs
}

// validateSecurityContext checks what a container's securityContext may not ask for: a
// capability outside the default set or one written with CAP_ (SEC-018), runAsNonRoot with user 0 (SEC-019), and
// privilege escalation, which noNewPrivileges (SEC-001) always prevents (SEC-020).
func validateSecurityContext(sc *v1alpha1.SecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	if sc.Capabilities != nil {
		var allowed []string
		for _, c := range v1alpha1.DefaultCapabilities {
			allowed = append(allowed, string(c))
		}
		for i, c := range sc.Capabilities.Add {
			if !slices.Contains(v1alpha1.DefaultCapabilities, c) {
				errs = append(errs, field.NotSupported(spec.SEC018, p.Child("capabilities", "add").Index(i), c, allowed))
			}
		}
		for i, c := range sc.Capabilities.Drop {
			if name, ok := strings.CutPrefix(string(c), "CAP_"); ok {
				errs = append(errs, field.Invalid(spec.SEC018, p.Child("capabilities", "drop").Index(i), c, "write capabilities without CAP_, as Kubernetes does: "+name))
			}
		}
	}
	if sc.RunAsNonRoot != nil && *sc.RunAsNonRoot && sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		errs = append(errs, field.Invalid(spec.SEC019, p.Child("runAsUser"), *sc.RunAsUser, "runAsNonRoot is true, so the container may not run as user 0"))
	}
	if sc.AllowPrivilegeEscalation != nil && *sc.AllowPrivilegeEscalation {
		errs = append(errs, field.Invalid(spec.SEC020, p.Child("allowPrivilegeEscalation"), true, "every container process runs with noNewPrivileges ("+spec.SEC001+"); only false is allowed"))
	}
	return errs
}

// validateEnv warns about a variable listed twice (IMG-013): the later entry silently replaces
// the earlier one, so one of the two values is dead.
func validateEnv(env []v1alpha1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	first := make(map[string]int, len(env))
	for i, e := range env {
		if e.Name == "" {
			continue // MAN-003: the schema reports a missing name
		}
		if j, dup := first[e.Name]; dup {
			errs = append(errs, field.Duplicate(spec.IMG013, p.Index(i).Child("name"), e.Name,
				fmt.Sprintf("env[%d] sets it too, and only this later value takes effect; remove one", j)))
			continue
		}
		first[e.Name] = i
	}
	return errs
}

// gracePeriod is the pod's terminationGracePeriodSeconds, defaulted if unset.
func gracePeriod(s *v1alpha1.PodSpec) int64 {
	if s.TerminationGracePeriodSeconds == nil {
		return v1alpha1.DefaultTerminationGracePeriodSeconds
	}
	return *s.TerminationGracePeriodSeconds
}

// validateSignal checks a stop or notifier signal name (STOP-001, NTF-002): a known signal that
// a process can catch.
func validateSignal(rule, name string, p *field.Path) *field.Error {
	if v1alpha1.Uncatchable(name) {
		return field.Invalid(rule, p, name, name+" can be neither caught nor ignored, so the process gets no chance to react; use e.g. SIGTERM, SIGINT or SIGHUP")
	}
	if _, ok := v1alpha1.SignalNumber(name); ok {
		return nil
	}
	detail := "not a known signal name; use the upper-case name with its SIG prefix, e.g. SIGTERM, SIGHUP, SIGUSR1 or SIGRTMIN+3"
	guess := strings.ToUpper(name)
	if !strings.HasPrefix(guess, "SIG") {
		guess = "SIG" + guess
	}
	if _, ok := v1alpha1.SignalNumber(guess); ok && !v1alpha1.Uncatchable(guess) {
		detail = "not a known signal name; did you mean " + guess + "?"
	}
	return field.Invalid(rule, p, name, detail)
}

// validateProbes checks probe placement (HOOK-001) and handlers (HOOK-002).
func validateProbes(c *v1alpha1.Container, kind ContainerKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	probes := [...]struct {
		name  string
		probe *v1alpha1.Probe
	}{{"startupProbe", c.StartupProbe}, {"readinessProbe", c.ReadinessProbe}, {"livenessProbe", c.LivenessProbe}}
	for _, pr := range probes {
		if pr.probe == nil {
			continue
		}
		pp := p.Child(pr.name)
		if kind == KindInit {
			errs = append(errs, field.Forbidden(spec.HOOK001, pp,
				"an init container runs to completion once, so it cannot have probes; only main containers and sidecars (restartPolicy: Always) can").AtKey())
			continue
		}
		errs = append(errs, validateProbe(pr.probe, c.Ports, pp)...)
	}
	return errs
}

// validateProbe checks one probe: exactly one handler (HOOK-002) with a command or a port
// (HOOK-014), and sane periods.
func validateProbe(pr *v1alpha1.Probe, ports []v1alpha1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	set := setHandlers(map[string]bool{"exec": pr.Exec != nil, "httpGet": pr.HTTPGet != nil, "tcpSocket": pr.TCPSocket != nil, "grpc": pr.GRPC != nil})
	switch {
	case len(set) == 0:
		errs = append(errs, field.Required(spec.HOOK002, p, "a probe needs exactly one handler: exec, httpGet, tcpSocket or grpc"))
	case len(set) > 1:
		errs = append(errs, field.Forbidden(spec.HOOK002, p.Child(set[1]), "a probe has exactly one handler: exec, httpGet, tcpSocket or grpc, not "+set[0]+" and "+set[1]).AtKey())
	case pr.Exec != nil:
		errs = append(errs, validateExec(spec.HOOK002, pr.Exec, p.Child("exec"))...)
	case pr.HTTPGet != nil:
		errs = append(errs, validateHTTPGet(pr.HTTPGet, ports, p.Child("httpGet"))...)
	case pr.TCPSocket != nil:
		errs = append(errs, validatePortRef(pr.TCPSocket.Port, ports, p.Child("tcpSocket", "port"))...)
	case pr.GRPC != nil:
		errs = append(errs, validatePortRef(v1alpha1.PortNumber(pr.GRPC.Port), ports, p.Child("grpc", "port"))...)
	}
	minimum := func(name string, v, lowest int32) {
		if v < lowest {
			errs = append(errs, field.Invalid(spec.MAN002, p.Child(name), v, fmt.Sprintf("must be at least %d", lowest)))
		}
	}
	minimum("initialDelaySeconds", pr.InitialDelaySeconds, 0)
	minimum("periodSeconds", pr.PeriodSeconds, 1)
	minimum("timeoutSeconds", pr.TimeoutSeconds, 1)
	minimum("successThreshold", pr.SuccessThreshold, 1)
	minimum("failureThreshold", pr.FailureThreshold, 1)
	return errs
}

// validateExec checks that an exec handler has a non-empty command.
func validateExec(rule string, e *v1alpha1.ExecAction, p *field.Path) field.ErrorList {
	cp := p.Child("command")
	if len(e.Command) == 0 {
		return field.ErrorList{field.Required(rule, cp, "an exec handler needs a command")}
	}
	if e.Command[0] == "" {
		return field.ErrorList{field.Invalid(rule, cp.Index(0), "", "the program to run must not be empty")}
	}
	return nil
}

// validateLifecycle checks hook placement (HOOK-001) and handlers (HOOK-002).
func validateLifecycle(c *v1alpha1.Container, kind ContainerKind, grace int64, p *field.Path) field.ErrorList {
	l := c.Lifecycle
	if l == nil {
		return nil
	}
	if kind == KindInit {
		return field.ErrorList{field.Forbidden(spec.HOOK001, p,
			"an init container runs to completion once, so it cannot have lifecycle hooks; only main containers and sidecars (restartPolicy: Always) can").AtKey()}
	}
	var errs field.ErrorList
	errs = append(errs, validateHandler(l.PostStart, c.Ports, -1, p.Child("postStart"))...)
	errs = append(errs, validateHandler(l.PreStop, c.Ports, grace, p.Child("preStop"))...)
	return errs
}

// validateHandler checks that a hook has exactly one handler (HOOK-002). maxSleep bounds a sleep
// handler (the grace period for preStop); negative means unbounded.
func validateHandler(h *v1alpha1.LifecycleHandler, ports []v1alpha1.ContainerPort, maxSleep int64, p *field.Path) field.ErrorList {
	if h == nil {
		return nil
	}
	set := setHandlers(map[string]bool{"exec": h.Exec != nil, "httpGet": h.HTTPGet != nil, "sleep": h.Sleep != nil})
	switch {
	case len(set) == 0:
		return field.ErrorList{field.Required(spec.HOOK002, p, "a hook needs exactly one handler: exec, httpGet or sleep")}
	case len(set) > 1:
		return field.ErrorList{field.Forbidden(spec.HOOK002, p.Child(set[1]), "a hook has exactly one handler: exec, httpGet or sleep, not "+set[0]+" and "+set[1]).AtKey()}
	case h.Exec != nil:
		return validateExec(spec.HOOK002, h.Exec, p.Child("exec"))
	case h.HTTPGet != nil:
		return validateHTTPGet(h.HTTPGet, ports, p.Child("httpGet"))
	}
	sp := p.Child("sleep", "seconds")
	switch s := h.Sleep.Seconds; {
	case s < 0:
		return field.ErrorList{field.Invalid(spec.HOOK002, sp, s, "must not be negative")}
	case maxSleep >= 0 && s > maxSleep:
		return field.ErrorList{field.Invalid(spec.HOOK002, sp, s,
			fmt.Sprintf("a preStop sleep must fit the grace period (terminationGracePeriodSeconds is %d)", maxSleep))}
	}
	return nil
}

// validateNotifiers checks notifier placement (NTF-003), names (NTF-001) and actions (NTF-002).
func validateNotifiers(ns []v1alpha1.Notifier, kind ContainerKind, p *field.Path) field.ErrorList {
	if len(ns) == 0 {
		return nil
	}
	if kind == KindInit {
		return field.ErrorList{field.Forbidden(spec.NTF003, p,
			"notifiers run only in main containers and sidecars; a regular init container has exited before any notification can reach it").AtKey()}
	}
	var errs field.ErrorList
	seen := make(map[string]bool, len(ns))
	for i := range ns {
		n := &ns[i]
		np := p.Index(i)
		switch {
		case n.Name == "":
			errs = append(errs, field.Required(spec.MAN003, np.Child("name"), "every notifier needs a name"))
		case qualifiedNameProblem(n.Name) != "":
			errs = append(errs, field.Invalid(spec.NTF001, np.Child("name"), n.Name, "notifier name "+qualifiedNameProblem(n.Name)))
		case seen[n.Name]:
			errs = append(errs, field.Duplicate(spec.NTF001, np.Child("name"), n.Name, "notifier names must be unique within a container"))
		}
		seen[n.Name] = true
		if n.TimeoutSeconds != nil && *n.TimeoutSeconds < 1 {
			errs = append(errs, field.Invalid(spec.MAN002, np.Child("timeoutSeconds"), *n.TimeoutSeconds, "must be at least 1"))
		}
		errs = append(errs, validateNotifierAction(&n.Action, np.Child("action"))...)
	}
	return errs
}

// validateNotifierAction checks that an action is exactly one of exec or signal (NTF-002).
func validateNotifierAction(a *v1alpha1.NotifierAction, p *field.Path) field.ErrorList {
	switch {
	case a.Exec == nil && a.Signal == "":
		return field.ErrorList{field.Required(spec.NTF002, p, "a notifier action needs exactly one of exec or signal")}
	case a.Exec != nil && a.Signal != "":
		return field.ErrorList{field.Forbidden(spec.NTF002, p.Child("signal"), "a notifier action is exactly one of exec or signal, not both").AtKey()}
	case a.Exec != nil:
		return validateExec(spec.NTF002, a.Exec, p.Child("exec"))
	}
	if e := validateSignal(spec.NTF002, a.Signal, p.Child("signal")); e != nil {
		return field.ErrorList{e}
	}
	return nil
}

// validateDeferContainer checks one defer container (DEFER-001 and the shared container rules).
func validateDeferContainer(d *v1alpha1.DeferContainer, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateImage(d.Image, p.Child("image"))...)
	errs = append(errs, validateEnv(d.Env, p.Child("env"))...)
	if d.RestartPolicy != "" && d.RestartPolicy != v1alpha1.RestartPolicyNever && d.RestartPolicy != v1alpha1.RestartPolicyOnFailure {
		errs = append(errs, field.NotSupported(spec.DEFER001, p.Child("restartPolicy"), string(d.RestartPolicy),
			[]string{string(v1alpha1.RestartPolicyNever), string(v1alpha1.RestartPolicyOnFailure)}))
	}
	if d.TimeoutSeconds != nil && *d.TimeoutSeconds < 1 {
		errs = append(errs, field.Invalid(spec.DEFER001, p.Child("timeoutSeconds"), *d.TimeoutSeconds, "must be at least 1"))
	}
	if d.Phase != "" {
		if e := enumProblem(p.Child("phase"), d.Phase, v1alpha1.DeferBeforeStop, v1alpha1.DeferAfterStop); e != nil {
			errs = append(errs, e)
		}
	}
	if d.OnFailure != "" {
		if e := enumProblem(p.Child("onFailure"), d.OnFailure, v1alpha1.DeferContinue, v1alpha1.DeferAbort); e != nil {
			errs = append(errs, e)
		}
	}
	errs = append(errs, validateResources(d.Resources, p.Child("resources"))...)
	errs = append(errs, validateVolumeMounts(d.VolumeMounts, volumes, p.Child("volumeMounts"))...)
	return errs
}

// knownResources are the resource names podspec accepts, in the order messages list them.
func knownResources() []string {
	return []string{string(v1alpha1.ResourceCPU), string(v1alpha1.ResourceMemory), string(v1alpha1.ResourcePIDs)}
}

func isKnownResource(n v1alpha1.ResourceName) bool {
	return n == v1alpha1.ResourceCPU || n == v1alpha1.ResourceMemory || n == v1alpha1.ResourcePIDs
}

// quantityValue parses a quantity in the unit of its resource: millicores for cpu, bytes for
// memory, a count for pids.
func quantityValue(name v1alpha1.ResourceName, q v1alpha1.Quantity) (int64, error) {
	switch name {
	case v1alpha1.ResourceCPU:
		return q.MilliCPU()
	case v1alpha1.ResourceMemory:
		return q.Bytes()
	case v1alpha1.ResourcePIDs:
		return q.Count()
	}
	return 0, fmt.Errorf("unknown resource %q", string(name))
}

// validateResources checks resource names, quantities and requests ≤ limits (RES-001).
func validateResources(r *v1alpha1.ResourceRequirements, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	parse := func(list v1alpha1.ResourceList, lp *field.Path) map[v1alpha1.ResourceName]int64 {
		vals := make(map[v1alpha1.ResourceName]int64, len(list))
		for _, k := range sortedResourceNames(list) {
			q := list[k]
			kp := lp.Key(string(k))
			if !isKnownResource(k) {
				errs = append(errs, field.NotSupported(spec.RES001, kp, string(k), knownResources()).AtKey())
				continue
			}
			v, err := quantityValue(k, q)
			if err != nil {
				errs = append(errs, field.Invalid(spec.RES001, kp, string(q), err.Error()))
				continue
			}
			vals[k] = v
		}
		return vals
	}
	limits := parse(r.Limits, p.Child("limits"))
	requests := parse(r.Requests, p.Child("requests"))
	for _, k := range sortedResourceNames(r.Requests) {
		req, ok1 := requests[k]
		lim, ok2 := limits[k]
		if ok1 && ok2 && req > lim {
			errs = append(errs, field.Invalid(spec.RES001, p.Child("requests").Key(string(k)), string(r.Requests[k]),
				fmt.Sprintf("must be less than or equal to the %s limit (%s)", k, string(r.Limits[k]))))
		}
	}
	return errs
}

func sortedResourceNames(l v1alpha1.ResourceList) []v1alpha1.ResourceName {
	if len(l) == 0 {
		return nil
	}
	keys := make([]v1alpha1.ResourceName, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// validateResizePolicy checks resize policy resource names (RES-001) and policies.
func validateResizePolicy(rp []v1alpha1.ContainerResizePolicy, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[v1alpha1.ResourceName]bool, len(rp))
	for i := range rp {
		ip := p.Index(i)
		name := rp[i].ResourceName
		switch {
		case !isKnownResource(name):
			errs = append(errs, field.NotSupported(spec.RES001, ip.Child("resourceName"), string(name), knownResources()))
		case seen[name]:
			errs = append(errs, field.Duplicate(spec.RES001, ip.Child("resourceName"), string(name), "one resize policy per resource"))
		}
		seen[name] = true
		if rp[i].RestartPolicy != "" {
			if e := enumProblem(ip.Child("restartPolicy"), rp[i].RestartPolicy, v1alpha1.NotRequired, v1alpha1.RestartContainer); e != nil {
				errs = append(errs, e)
			}
		}
	}
	return errs
}
