package kubernetes

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// Checks of the API server's pod validation beyond names, ports and volumes: resources
// (KUBE-020), tolerations (KUBE-021), topology spread constraints (KUBE-022), security contexts
// (KUBE-023) and the API server's warnings on ports (KUBE-024).

// maxID is the largest user or group ID the API server accepts.
const maxID = 2147483647

// validateResources checks a container's (or the pod's) resources (KUBE-020): quantities are
// not negative, a request is at most its limit, and a resource that cannot be overcommitted
// (hugepages-*, an extended resource such as example.com/gpu) has a limit equal to its request.
func validateResources(r *ResourceRequirements, p *field.Path) field.ErrorList {
	if r == nil {
		return nil
	}
	var errs field.ErrorList
	value := func(q Quantity, at *field.Path) (float64, bool) {
		v, err := v1alpha1.Quantity(q).Value()
		if err != nil && strings.HasPrefix(strings.TrimSpace(string(q)), "-") {
			errs = append(errs, field.Invalid(ruleResources, at, string(q), "must not be negative"))
		}
		return v, err == nil
	}
	for _, name := range sortedKeys(r.Limits) {
		value(r.Limits[name], p.Child("limits").Key(name))
	}
	for _, name := range sortedKeys(r.Requests) {
		rp := p.Child("requests").Key(name)
		req, ok := value(r.Requests[name], rp)
		lim, hasLimit := r.Limits[name]
		switch {
		case !ok:
		case !overcommittable(name) && !hasLimit:
			errs = append(errs, field.Required(ruleResources, p.Child("limits").Key(name),
				fmt.Sprintf("%s cannot be overcommitted: a request needs a limit equal to it", name)))
		case hasLimit:
			l, err := v1alpha1.Quantity(lim).Value()
			switch {
			case err != nil:
			case req > l:
				errs = append(errs, field.Invalid(ruleResources, rp, string(r.Requests[name]),
					fmt.Sprintf("must be less than or equal to the %s limit (%s)", name, lim)))
			case !overcommittable(name) && req != l:
				errs = append(errs, field.Invalid(ruleResources, rp, string(r.Requests[name]),
					fmt.Sprintf("must equal the %s limit (%s): it cannot be overcommitted", name, lim)))
			}
		}
	}
	return errs
}

// overcommittable reports whether a node may promise more of a resource than it has: the
// native ones (cpu, memory, ephemeral-storage) yes, hugepages and extended resources no.
func overcommittable(name string) bool {
	if strings.HasPrefix(name, "hugepages-") {
		return false
	}
	domain, _, qualified := strings.Cut(name, "/")
	return !qualified || domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io")
}

// validateTolerations checks a pod's tolerations (KUBE-021): operator Exists takes no value, an
// empty key needs operator Exists (it tolerates every taint), tolerationSeconds only with the
// NoExecute effect, and a key that is a qualified name.
func validateTolerations(ts []Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		tp := p.Index(i)
		if t.Key == "" && t.Operator != "Exists" {
			errs = append(errs, field.Invalid(ruleTolerations, tp.Child("operator"), string(t.Operator),
				"a toleration with an empty key must have operator Exists (it then tolerates every taint)"))
		}
		if t.Key != "" {
			if d := validation.QualifiedNameProblem(t.Key); d != "" {
				errs = append(errs, field.Invalid(ruleTolerations, tp.Child("key"), t.Key, d))
			}
		}
		if t.Operator == "Exists" && t.Value != "" {
			errs = append(errs, field.Invalid(ruleTolerations, tp.Child("value"), t.Value, "must be empty when operator is Exists"))
		}
		if t.TolerationSeconds != nil && t.Effect != "NoExecute" {
			errs = append(errs, field.Invalid(ruleTolerations, tp.Child("effect"), string(t.Effect),
				"must be NoExecute when tolerationSeconds is set"))
		}
	}
	return errs
}

// validateTopologySpread checks a pod's topology spread constraints (KUBE-022): maxSkew at least
// 1, a topologyKey, minDomains at least 1 and only with whenUnsatisfiable DoNotSchedule, and no
// two constraints with the same topologyKey and whenUnsatisfiable.
func validateTopologySpread(cs []TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]string{}
	for i, c := range cs {
		cp := p.Index(i)
		if c.MaxSkew < 1 {
			errs = append(errs, field.Invalid(ruleTopologySpread, cp.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ruleTopologySpread, cp.Child("topologyKey"), "can not be empty"))
		}
		if m := c.MinDomains; m != nil {
			switch {
			case *m < 1:
				errs = append(errs, field.Invalid(ruleTopologySpread, cp.Child("minDomains"), *m, "must be greater than zero"))
			case c.WhenUnsatisfiable != "DoNotSchedule":
				errs = append(errs, field.Invalid(ruleTopologySpread, cp.Child("minDomains"), *m, "may only be set when whenUnsatisfiable is DoNotSchedule"))
			}
		}
		key := c.TopologyKey + "/" + string(c.WhenUnsatisfiable)
		if first, dup := seen[key]; dup && c.TopologyKey != "" {
			errs = append(errs, field.Duplicate(ruleTopologySpread, cp, key,
				"a constraint with this topologyKey and whenUnsatisfiable is already at "+first))
		} else {
			seen[key] = cp.String()
		}
	}
	return errs
}

// validateSecurityContext checks a container's security context (KUBE-023): user and group
// IDs between 0 and 2147483647, and no privileged container, nor one adding CAP_SYS_ADMIN, that
// also forbids privilege escalation (it has it anyway).
func validateSecurityContext(sc *SecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	errs := validateIDs(p, map[string]*int64{"runAsUser": sc.RunAsUser, "runAsGroup": sc.RunAsGroup})
	if sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(ruleSecurity, p.Child("allowPrivilegeEscalation"), false,
				"cannot be false when privileged is true: a privileged container can always escalate"))
		}
		if sc.Capabilities != nil {
			for i, c := range sc.Capabilities.Add {
				if c == "SYS_ADMIN" || c == "CAP_SYS_ADMIN" {
					errs = append(errs, field.Invalid(ruleSecurity, p.Child("capabilities", "add").Index(i), c,
						"cannot be added when allowPrivilegeEscalation is false: SYS_ADMIN allows escalation"))
				}
			}
		}
	}
	return errs
}

// validatePodSecurityContext checks the pod's security context's IDs (KUBE-023).
func validatePodSecurityContext(sc *PodSecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	errs := validateIDs(p, map[string]*int64{"runAsUser": sc.RunAsUser, "runAsGroup": sc.RunAsGroup, "fsGroup": sc.FSGroup})
	for i, g := range sc.SupplementalGroups {
		if g < 0 || g > maxID {
			errs = append(errs, field.Invalid(ruleSecurity, p.Child("supplementalGroups").Index(i), g, fmt.Sprintf("must be between 0 and %d", maxID)))
		}
	}
	return errs
}

func validateIDs(p *field.Path, ids map[string]*int64) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(ids) {
		if v := ids[name]; v != nil && (*v < 0 || *v > maxID) {
			errs = append(errs, field.Invalid(ruleSecurity, p.Child(name), *v, fmt.Sprintf("must be between 0 and %d", maxID)))
		}
	}
	return errs
}

// validateHostNetworkPorts checks that with hostNetwork each hostPort is its containerPort
// (KUBE-008): the container listens on the node's network, so no port can be mapped.
func validateHostNetworkPorts(s *PodSpec, c *Container, p *field.Path) field.ErrorList {
	if !s.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, port := range c.Ports {
		if port.HostPort != 0 && port.HostPort != port.ContainerPort {
			errs = append(errs, field.Invalid(rulePorts, p.Child("ports").Index(i).Child("hostPort"), port.HostPort,
				fmt.Sprintf("must equal containerPort (%d) when hostNetwork is true", port.ContainerPort)))
		}
	}
	return errs
}

// duplicatePorts warns, as the API server does, about a port declared twice in a pod: the same
// containerPort, protocol, hostIP and hostPort (KUBE-024).
func duplicatePorts(t *Template) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]string{}
	each(t, func(c *Container, kind containerKind, p *field.Path) {
		if kind == kindEphemeral {
			return
		}
		for i, port := range c.Ports {
			if port.ContainerPort < 1 || port.ContainerPort > maxPort {
				continue // KUBE-008 or KUBE-003 reports it
			}
			proto := string(port.Protocol)
			if proto == "" {
				proto = "TCP"
			}
			key := fmt.Sprintf("%d/%s/%s/%d", port.ContainerPort, proto, port.HostIP, port.HostPort)
			pp := p.Child("ports").Index(i)
			if first, dup := seen[key]; dup {
				errs = append(errs, field.Invalid(rulePortWarnings, pp, port.ContainerPort, "duplicate port definition with "+first))
				continue
			}
			seen[key] = pp.String()
		}
	})
	return errs
}
