package v1alpha1

import (
	"net"

	"podspec.dev/podspec/imageref"
)

// Defaults the spec assigns; Kubernetes' values where Kubernetes has the field.
const (
	DefaultTerminationGracePeriodSeconds int64   = 30
	DefaultBackoffInitialSeconds         float64 = 10
	DefaultBackoffFactor                 float64 = 2
	DefaultBackoffMaxSeconds             float64 = 300
	DefaultBackoffResetAfterSeconds      float64 = 600
	DefaultProbePeriodSeconds            int32   = 10
	DefaultProbeTimeoutSeconds           int32   = 1
	DefaultProbeSuccessThreshold         int32   = 1
	DefaultProbeFailureThreshold         int32   = 3
	DefaultNotifierTimeoutSeconds        int32   = 10
	DefaultStopSignal                            = "SIGTERM"
	// MinimumStopWindowSeconds is the stop window main containers always get, which defers
	// cannot consume (Kubernetes' minimumGracePeriodInSeconds).
	MinimumStopWindowSeconds int64 = 2
)

// DefaultCapabilities are the capabilities a container process gets unless its
// securityContext drops them, and the only ones it may add (SEC-002, SEC-018): Docker's
// default set, with Kubernetes' names.
var DefaultCapabilities = []Capability{
	"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}

// SetDefaults fills every unset field of the pod with its default, in place.
func (p *Pod) SetDefaults() {
	if p.APIVersion == "" {
		p.APIVersion = APIVersion
	}
	if p.Kind == "" {
		p.Kind = KindPod
	}
	s := &p.Spec
	if s.ExitPolicy == "" {
		s.ExitPolicy = ExitPolicyAll
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = RestartPolicyAlways
	}
	if s.TerminationGracePeriodSeconds == nil {
		v := DefaultTerminationGracePeriodSeconds
		s.TerminationGracePeriodSeconds = &v
	}
	if s.RestartBackoff == nil {
		s.RestartBackoff = &Backoff{}
	}
	s.RestartBackoff.setDefaults()
	for i := range s.Volumes {
		if sh := s.Volumes[i].Shared; sh != nil && sh.ReclaimPolicy == "" {
			sh.ReclaimPolicy = ReclaimPolicyRetain
		}
	}
	for i := range s.InitContainers {
		s.InitContainers[i].setDefaults()
	}
	for i := range s.Containers {
		c := &s.Containers[i]
		c.setDefaults()
		for j := range c.DependsOn {
			if c.DependsOn[j].Condition == "" {
				c.DependsOn[j].Condition = ConditionStarted
			}
		}
	}
	for i := range s.DeferContainers {
		d := &s.DeferContainers[i]
		if d.Phase == "" {
			d.Phase = DeferAfterStop
		}
		if d.ImagePullPolicy == "" {
			d.ImagePullPolicy = DefaultPullPolicy(d.Image)
		}
		if d.RestartPolicy == "" {
			d.RestartPolicy = RestartPolicyNever
		}
		if d.OnFailure == "" {
			d.OnFailure = DeferContinue
		}
	}
}

func (b *Backoff) setDefaults() {
	set := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	set(&b.InitialSeconds, DefaultBackoffInitialSeconds)
	set(&b.Factor, DefaultBackoffFactor)
	set(&b.MaxSeconds, DefaultBackoffMaxSeconds)
	set(&b.ResetAfterSeconds, DefaultBackoffResetAfterSeconds)
}

func (c *Container) setDefaults() {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = DefaultPullPolicy(c.Image)
	}
	if c.StopSignal == "" {
		c.StopSignal = DefaultStopSignal
	}
	for _, p := range []*Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
		if p != nil {
			p.setDefaults()
		}
	}
	for i := range c.Notifiers {
		if c.Notifiers[i].TimeoutSeconds == nil {
			v := DefaultNotifierTimeoutSeconds
			c.Notifiers[i].TimeoutSeconds = &v
		}
	}
	for i := range c.ResizePolicy {
		if c.ResizePolicy[i].RestartPolicy == "" {
			c.ResizePolicy[i].RestartPolicy = NotRequired
		}
	}
}

func (p *Probe) setDefaults() {
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = DefaultProbePeriodSeconds
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = DefaultProbeTimeoutSeconds
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = DefaultProbeSuccessThreshold
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = DefaultProbeFailureThreshold
	}
}

// SetDefaults fills every unset field of the notification with its default, in place.
func (n *Notification) SetDefaults() {
	if n.APIVersion == "" {
		n.APIVersion = APIVersion
	}
	if n.Kind == "" {
		n.Kind = KindNotification
	}
	if n.Spec.TargetPolicy == "" {
		n.Spec.TargetPolicy = PreExistingPods
	}
	if n.Spec.Parallelism == nil {
		var v int32
		n.Spec.Parallelism = &v
	}
}

// IsSidecar reports whether an init container is a sidecar (restartPolicy Always).
func (c *Container) IsSidecar() bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == RestartPolicyAlways
}

// EffectiveRestartPolicy is the container's restart policy after the pod's is applied. For a
// regular init container, Always is treated as OnFailure (init containers run to completion).
func (s *PodSpec) EffectiveRestartPolicy(c *Container, isInit bool) RestartPolicy {
	p := s.RestartPolicy
	if c.RestartPolicy != nil {
		p = *c.RestartPolicy
	}
	if p == "" {
		p = RestartPolicyAlways
	}
	if isInit && !c.IsSidecar() && p == RestartPolicyAlways {
		return RestartPolicyOnFailure
	}
	return p
}

// DefaultPullPolicy is Kubernetes' default imagePullPolicy for an image (IMG-022): Always for a
// registry reference with the tag latest or neither tag nor digest, IfNotPresent for another
// registry reference, and none for an OCI layout (whose policy has no effect) or a reference
// that does not parse (IMG-001 reports it).
func DefaultPullPolicy(image string) PullPolicy {
	if imageref.IsLayout(image) {
		return ""
	}
	r, err := imageref.Parse(image)
	switch {
	case err != nil:
		return ""
	case r.Tagged && r.Name.Identifier() == "latest":
		return PullAlways
	}
	return PullIfNotPresent
}

// DefaultHostIP is the host address of a port published without a hostIP: the host's loopback,
// so that a pod is reachable beyond the machine only when its manifest asks (NET-005).
const DefaultHostIP = "127.0.0.1"

// PublishedHostIP is the host address p is published on: HostIP, or DefaultHostIP, in the one
// spelling CanonicalIP gives, so that `::` and `::0` compare equal wherever addresses are compared.
func (p ContainerPort) PublishedHostIP() string {
	if p.HostIP == "" {
		return DefaultHostIP
	}
	return CanonicalIP(p.HostIP)
}

// CanonicalIP is addr in the one spelling Go prints it (RFC 5952 for IPv6: `::0` is `::`,
// `::FFFF:1.2.3.4` is `1.2.3.4`), or addr unchanged when it is not an IP address.
func CanonicalIP(addr string) string {
	if ip := net.ParseIP(addr); ip != nil {
		return ip.String()
	}
	return addr
}
