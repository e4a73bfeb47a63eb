package validation

import (
	"fmt"
	"net"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// setHandlers returns the names of the handlers that are set, sorted.
func setHandlers(handlers map[string]bool) []string {
	var set []string
	for name, ok := range handlers {
		if ok {
			set = append(set, name)
		}
	}
	slices.Sort(set)
	return set
}

// validatePorts checks a container's ports: numbers in range, names distinct (HOOK-020), and a
// published port's host side (NET-001, NET-002).
func validatePorts(ports []v1alpha1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	named := map[string]bool{}
	for i, port := range ports {
		pp := p.Index(i)
		if port.ContainerPort < 1 || port.ContainerPort > 65535 {
			errs = append(errs, field.Invalid(spec.HOOK020, pp.Child("containerPort"), port.ContainerPort, "must be a port number from 1 to 65535"))
		}
		errs = append(errs, validateHostSide(port, pp)...)
		if port.Name == "" {
			continue
		}
		if d := PortNameProblem(port.Name); d != "" {
			errs = append(errs, field.Invalid(spec.HOOK020, pp.Child("name"), port.Name, d))
		}
		if named[port.Name] {
			errs = append(errs, field.Duplicate(spec.HOOK020, pp.Child("name"), port.Name, "another port of this container has this name"))
		}
		named[port.Name] = true
	}
	return errs
}

// validateHostSide checks a port's hostPort and hostIP (NET-001) and that a published port is
// TCP (NET-002).
func validateHostSide(port v1alpha1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.HostPort < 0 || port.HostPort > 65535 { // 0: not published
		errs = append(errs, field.Invalid(spec.NET001, p.Child("hostPort"), port.HostPort, "must be a port number from 1 to 65535"))
	}
	if port.HostIP != "" {
		switch {
		case net.ParseIP(port.HostIP) == nil:
			errs = append(errs, field.Invalid(spec.NET001, p.Child("hostIP"), port.HostIP, "must be an IPv4 or IPv6 address, such as 127.0.0.1 or 0.0.0.0"))
		case port.HostPort == 0:
			errs = append(errs, field.Invalid(spec.NET001, p.Child("hostIP"), port.HostIP, "publishes nothing without a hostPort: set hostPort or remove hostIP"))
		}
	}
	if port.HostPort != 0 && port.Protocol != "" && port.Protocol != v1alpha1.ProtocolTCP {
		errs = append(errs, field.Invalid(spec.NET002, p.Child("protocol"), port.Protocol, "only TCP ports are published on the host: remove hostPort, or publish a TCP port"))
	}
	return errs
}

// validateHostPorts checks that no two ports of the pod's containers publish the same host
// address (NET-003).
func validateHostPorts(s *v1alpha1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]string{}
	check := func(c *v1alpha1.Container, cp *field.Path) {
		for i, port := range c.Ports {
			if port.HostPort == 0 {
				continue
			}
			addr := net.JoinHostPort(port.PublishedHostIP(), fmt.Sprint(port.HostPort)) // ::0 and :: are one address
			pp := cp.Child("ports").Index(i).Child("hostPort")
			if first, ok := seen[addr]; ok {
				errs = append(errs, field.Duplicate(spec.NET003, pp, port.HostPort, fmt.Sprintf("host address %s is already published by %s", addr, first)))
				continue
			}
			seen[addr] = pp.String()
		}
	}
	for i := range s.InitContainers {
		check(&s.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range s.Containers {
		check(&s.Containers[i], p.Child("containers").Index(i))
	}
	return errs
}

// validateHTTPGet checks an httpGet handler's port (HOOK-014).
func validateHTTPGet(h *v1alpha1.HTTPGetAction, ports []v1alpha1.ContainerPort, p *field.Path) field.ErrorList {
	return validatePortRef(h.Port, ports, p.Child("port"))
}

// validatePortRef checks that a handler's port is a number in range or names one of the
// container's ports (HOOK-014).
func validatePortRef(ref v1alpha1.PortRef, ports []v1alpha1.ContainerPort, p *field.Path) field.ErrorList {
	if !ref.IsNamed() {
		if ref.Number < 1 || ref.Number > 65535 {
			return field.ErrorList{field.Invalid(spec.HOOK014, p, ref.Number, "must be a port number from 1 to 65535")}
		}
		return nil
	}
	for _, port := range ports {
		if port.Name == ref.Name {
			return nil
		}
	}
	var names []string
	for _, port := range ports {
		if port.Name != "" {
			names = append(names, port.Name)
		}
	}
	msg := "names no port of this container: declare it in the container's ports"
	if len(names) > 0 {
		msg = fmt.Sprintf("names no port of this container (its named ports: %v)", names)
	}
	return field.ErrorList{field.NotFound(spec.HOOK014, p, ref.Name, msg)}
}

// PortNameProblem returns why s is not an IANA service name (RFC 6335), the name of a
// container port, or "" if it is one.
func PortNameProblem(s string) string {
	switch {
	case len(s) > 15:
		return fmt.Sprintf("must be a port name of at most 15 characters (is %d)", len(s))
	case strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != "":
		return "must be a port name of lower-case letters, digits and '-'"
	case strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--"):
		return "must be a port name that neither starts nor ends with '-' nor has two in a row"
	case !strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz"):
		return "must be a port name with at least one letter"
	}
	return ""
}
