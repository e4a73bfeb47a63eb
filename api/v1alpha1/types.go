package v1alpha1

import "time"

// Group, Version and APIVersion name this API.
const (
	Group      = "podspec.dev"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
)

// Kinds of objects in this API.
const (
	KindPod          = "Pod"
	KindNotification = "Notification"
)

// TypeMeta names the API version and kind of an object.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ObjectMeta is the metadata every object carries.
type ObjectMeta struct {
	// Name is a DNS label (RFC 1123), unique among objects of its kind on one runtime.
	Name string `json:"name"`
	// Labels are identifying key/value pairs; Notification selectors match them.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are non-identifying key/value pairs (e.g. validator suppressions).
	Annotations map[string]string `json:"annotations,omitempty"`
	// Generation is set by the runtime: 1 at creation, incremented on every accepted update.
	Generation int64 `json:"generation,omitempty"`
}

// Pod is a group of containers that live and die together.
type Pod struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta `json:"metadata"`
	Spec     PodSpec    `json:"spec"`
	Status   *PodStatus `json:"status,omitempty"`
}

// ExitPolicy says when a pod's main containers end the pod.
type ExitPolicy string

// Exit policies.
const (
	ExitPolicyAll        ExitPolicy = "All"
	ExitPolicyAny        ExitPolicy = "Any"
	ExitPolicyAnyFailure ExitPolicy = "AnyFailure"
)

// RestartPolicy says whether a container that exits is restarted.
type RestartPolicy string

// Restart policies of pods and containers.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// PullPolicy says when a runtime pulls a registry image (Kubernetes' imagePullPolicy).
type PullPolicy string

// Pull policies (IMG-019 … IMG-022).
const (
	// PullAlways asks the registry which manifest the reference names at every pod creation.
	PullAlways PullPolicy = "Always"
	// PullIfNotPresent uses an image the runtime holds for the reference, and pulls otherwise.
	PullIfNotPresent PullPolicy = "IfNotPresent"
	// PullNever uses only an image the runtime holds, and never contacts a registry.
	PullNever PullPolicy = "Never"
)

// PodSpec is the desired behaviour of a pod.
type PodSpec struct {
	// ExitPolicy decides when the pod ends; default All.
	ExitPolicy ExitPolicy `json:"exitPolicy,omitempty"`
	// RestartPolicy applies to every container that does not override it; default Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// RestartBackoff parameterises the delay between restarts of one container.
	RestartBackoff *Backoff `json:"restartBackoff,omitempty"`
	// TerminationGracePeriodSeconds bounds the whole stop sequence; default 30, 0 forces.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// ActiveDeadlineSeconds bounds the pod's running time, counted from its start.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// Volumes the containers may mount.
	Volumes []Volume `json:"volumes,omitempty"`
	// InitContainers run once, one at a time, in order; with restartPolicy Always they are sidecars.
	InitContainers []Container `json:"initContainers,omitempty"`
	// Containers are the main containers.
	Containers []Container `json:"containers"`
	// DeferContainers run, one at a time in order, when the pod terminates.
	DeferContainers []DeferContainer `json:"deferContainers,omitempty"`
}

// Backoff is the exponential back-off between restarts of one container.
type Backoff struct {
	// InitialSeconds is the first delay; default 10. Fractions are allowed.
	InitialSeconds *float64 `json:"initialSeconds,omitempty"`
	// Factor multiplies the delay after each restart; default 2.
	Factor *float64 `json:"factor,omitempty"`
	// MaxSeconds caps the delay; default 300.
	MaxSeconds *float64 `json:"maxSeconds,omitempty"`
	// ResetAfterSeconds of running without exit resets the delay to InitialSeconds; default 600.
	ResetAfterSeconds *float64 `json:"resetAfterSeconds,omitempty"`
}

// Volume is a named source of storage the pod's containers may mount. Exactly one source is set.
type Volume struct {
	Name     string                `json:"name"`
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty"`
	Shared   *SharedVolumeSource   `json:"shared,omitempty"`
}

// EmptyDirVolumeSource is a pod-scoped directory that lives until the pod is deleted.
type EmptyDirVolumeSource struct {
	// Medium is "" (the runtime's disk) or "Memory" (tmpfs).
	Medium string `json:"medium,omitempty"`
	// SizeLimit caps the volume (e.g. "64Mi").
	SizeLimit *Quantity `json:"sizeLimit,omitempty"`
}

// HostPathVolumeSource is a host directory; the runtime never owns or deletes it.
type HostPathVolumeSource struct {
	Path string `json:"path"`
}

// ReclaimPolicy says what happens to a shared volume when its last pod is deleted.
type ReclaimPolicy string

// Reclaim policies.
const (
	ReclaimPolicyRetain ReclaimPolicy = "Retain"
	ReclaimPolicyDelete ReclaimPolicy = "Delete"
)

// SharedVolumeSource is a named volume shared by several pods, reference-counted by the runtime.
type SharedVolumeSource struct {
	Name string `json:"name"`
	// ReclaimPolicy defaults to Retain.
	ReclaimPolicy ReclaimPolicy `json:"reclaimPolicy,omitempty"`
}

// Container is an init, sidecar or main container.
type Container struct {
	Name string `json:"name"`
	// Image is a registry reference "[HOST[:PORT]/]PATH[:TAG][@DIGEST]" or
	// "oci:PATH[:TAG|@DIGEST]", an OCI image layout.
	Image string `json:"image"`
	// ImagePullPolicy says when a registry image is pulled; defaults as in Kubernetes (IMG-022).
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	Command         []string   `json:"command,omitempty"`
	Args            []string   `json:"args,omitempty"`
	WorkingDir      string     `json:"workingDir,omitempty"`
	Env             []EnvVar   `json:"env,omitempty"`
	// RestartPolicy overrides the pod's. On an init container, Always makes it a sidecar.
	RestartPolicy *RestartPolicy `json:"restartPolicy,omitempty"`
	// StopSignal is sent to stop the container; default SIGTERM.
	StopSignal   string                  `json:"stopSignal,omitempty"`
	Resources    *ResourceRequirements   `json:"resources,omitempty"`
	ResizePolicy []ContainerResizePolicy `json:"resizePolicy,omitempty"`
	VolumeMounts []VolumeMount           `json:"volumeMounts,omitempty"`
	// Ports are the ports the container listens on, for probes and hooks to name; those with a
	// hostPort are published on the host (NET-004).
	Ports []ContainerPort `json:"ports,omitempty"`
	// StartupProbe must pass before the container counts as Started.
	StartupProbe *Probe `json:"startupProbe,omitempty"`
	// ReadinessProbe decides the container's Ready state.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// LivenessProbe restarts the container (under its restart policy) when it fails.
	LivenessProbe *Probe     `json:"livenessProbe,omitempty"`
	Lifecycle     *Lifecycle `json:"lifecycle,omitempty"`
	// Notifiers are the named actions a Notification may trigger in this container.
	Notifiers []Notifier `json:"notifiers,omitempty"`
	// DependsOn orders main containers' starts; only main containers may be named.
	DependsOn []Dependency `json:"dependsOn,omitempty"`
	// SecurityContext sets the process's user, capabilities and root filesystem.
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`
}

// Capability is a Linux capability as Kubernetes writes it, without CAP_ (e.g. NET_ADMIN).
type Capability string

// Capabilities adds to or drops from the default capability set; drop applies first.
type Capabilities struct {
	// Add may name only capabilities of the default set (SEC-018).
	Add []Capability `json:"add,omitempty"`
	// Drop may name ALL, every capability.
	Drop []Capability `json:"drop,omitempty"`
}

// SecurityContext is a container's security settings, with Kubernetes' names.
type SecurityContext struct {
	// RunAsUser overrides the user of the image's User.
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// RunAsGroup overrides the primary group.
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// RunAsNonRoot refuses to start the container as UID 0.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`
	// ReadOnlyRootFilesystem mounts the root filesystem read-only.
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`
	// AllowPrivilegeEscalation may only be false: noNewPrivileges is always set (SEC-020).
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation,omitempty"`
	Capabilities             *Capabilities `json:"capabilities,omitempty"`
}

// EnvVar is one environment variable.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// ResourceName names a resource: cpu, memory or pids.
type ResourceName string

// Resource names.
const (
	ResourceCPU    ResourceName = "cpu"
	ResourceMemory ResourceName = "memory"
	ResourcePIDs   ResourceName = "pids"
)

// ResourceList maps resource names to quantities.
type ResourceList map[ResourceName]Quantity

// ResourceRequirements are a container's resource limits and requests.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// ResourceResizeRestartPolicy says whether resizing a resource restarts the container.
type ResourceResizeRestartPolicy string

// Resize restart policies.
const (
	NotRequired      ResourceResizeRestartPolicy = "NotRequired"
	RestartContainer ResourceResizeRestartPolicy = "RestartContainer"
)

// ContainerResizePolicy is the resize policy of one resource.
type ContainerResizePolicy struct {
	ResourceName  ResourceName                `json:"resourceName"`
	RestartPolicy ResourceResizeRestartPolicy `json:"restartPolicy,omitempty"`
}

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// ExecAction runs a command inside the container.
type ExecAction struct {
	Command []string `json:"command"`
}

// SleepAction pauses for a number of seconds.
type SleepAction struct {
	Seconds int64 `json:"seconds"`
}

// ContainerPort is a port a container listens on in the pod's network namespace.
type ContainerPort struct {
	// Name lets probes and hooks name the port; unique within the container.
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// HostPort publishes the port on the host (TCP only, NET-002): connections to
	// HostIP:HostPort reach ContainerPort on the pod's loopback interface (NET-004).
	HostPort int32 `json:"hostPort,omitempty"`
	// HostIP is the host address HostPort is published on, an IPv4 or IPv6 address; default
	// DefaultHostIP (NET-005).
	HostIP string `json:"hostIP,omitempty"`
}

// Protocol is a container port's transport protocol.
type Protocol string

// Protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// URIScheme is the scheme of an httpGet handler.
type URIScheme string

// URI schemes.
const (
	URISchemeHTTP  URIScheme = "HTTP"
	URISchemeHTTPS URIScheme = "HTTPS"
)

// HTTPHeader is one request header of an httpGet check.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPGetAction is an HTTP GET request to the pod's network namespace.
type HTTPGetAction struct {
	// Path defaults to /.
	Path string `json:"path,omitempty"`
	// Port is a number, or the name of one of the container's ports.
	Port PortRef `json:"port"`
	// Host defaults to the pod's loopback address, 127.0.0.1.
	Host string `json:"host,omitempty"`
	// Scheme defaults to HTTP; HTTPS does not verify the server's certificate.
	Scheme      URIScheme    `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// TCPSocketAction opens a TCP connection in the pod's network namespace.
type TCPSocketAction struct {
	// Port is a number, or the name of one of the container's ports.
	Port PortRef `json:"port"`
	// Host defaults to the pod's loopback address, 127.0.0.1.
	Host string `json:"host,omitempty"`
}

// GRPCAction calls the gRPC health checking protocol (grpc.health.v1.Health/Check).
type GRPCAction struct {
	Port int32 `json:"port"`
	// Service is the service name sent in the request; default "".
	Service *string `json:"service,omitempty"`
}

// Probe checks a container periodically: exactly one of Exec, HTTPGet, TCPSocket or GRPC.
type Probe struct {
	Exec                *ExecAction      `json:"exec,omitempty"`
	HTTPGet             *HTTPGetAction   `json:"httpGet,omitempty"`
	TCPSocket           *TCPSocketAction `json:"tcpSocket,omitempty"`
	GRPC                *GRPCAction      `json:"grpc,omitempty"`
	InitialDelaySeconds int32            `json:"initialDelaySeconds,omitempty"`
	// PeriodSeconds defaults to 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// TimeoutSeconds defaults to 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// SuccessThreshold defaults to 1.
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	// FailureThreshold defaults to 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// LifecycleHandler is one hook action: exactly one of Exec, HTTPGet or Sleep.
type LifecycleHandler struct {
	Exec    *ExecAction    `json:"exec,omitempty"`
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
	Sleep   *SleepAction   `json:"sleep,omitempty"`
}

// Lifecycle holds a container's hooks.
type Lifecycle struct {
	// PostStart runs after the process starts; the container is not Started until it returns.
	PostStart *LifecycleHandler `json:"postStart,omitempty"`
	// PreStop runs before the stop signal, inside the pod's grace budget.
	PreStop *LifecycleHandler `json:"preStop,omitempty"`
}

// Notifier is a named action declared on a container.
type Notifier struct {
	Name string `json:"name"`
	// TimeoutSeconds bounds the action; default 10.
	TimeoutSeconds *int32         `json:"timeoutSeconds,omitempty"`
	Action         NotifierAction `json:"action"`
}

// NotifierAction is exactly one of Exec or Signal.
type NotifierAction struct {
	Exec *ExecAction `json:"exec,omitempty"`
	// Signal is a signal name such as SIGHUP; SIGKILL and SIGSTOP are not allowed.
	Signal string `json:"signal,omitempty"`
}

// DependencyCondition is what must hold of a dependency before a dependent starts.
type DependencyCondition string

// Dependency conditions.
const (
	ConditionStarted   DependencyCondition = "Started"
	ConditionReady     DependencyCondition = "Ready"
	ConditionCompleted DependencyCondition = "Completed"
)

// Dependency names a main container and the condition it must reach first.
type Dependency struct {
	Name string `json:"name"`
	// Condition defaults to Started.
	Condition DependencyCondition `json:"condition,omitempty"`
}

// DeferPhase says when in the stop sequence a defer container runs.
type DeferPhase string

// Defer phases.
const (
	DeferBeforeStop DeferPhase = "BeforeStop"
	DeferAfterStop  DeferPhase = "AfterStop"
)

// DeferFailurePolicy says whether later defers run after one fails.
type DeferFailurePolicy string

// Defer failure policies.
const (
	DeferContinue DeferFailurePolicy = "Continue"
	DeferAbort    DeferFailurePolicy = "Abort"
)

// DeferContainer runs once when the pod terminates (except on a forced stop).
type DeferContainer struct {
	Name  string `json:"name"`
	Image string `json:"image"`
	// ImagePullPolicy says when a registry image is pulled; defaults as in Kubernetes (IMG-022).
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	Command         []string   `json:"command,omitempty"`
	Args            []string   `json:"args,omitempty"`
	WorkingDir      string     `json:"workingDir,omitempty"`
	Env             []EnvVar   `json:"env,omitempty"`
	// Phase defaults to AfterStop.
	Phase DeferPhase `json:"phase,omitempty"`
	// TimeoutSeconds is clamped to what is left of the pod's grace budget.
	TimeoutSeconds *int64 `json:"timeoutSeconds,omitempty"`
	// RestartPolicy is Never (default) or OnFailure.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// OnFailure defaults to Continue.
	OnFailure    DeferFailurePolicy    `json:"onFailure,omitempty"`
	Resources    *ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts []VolumeMount         `json:"volumeMounts,omitempty"`
}

// PodPhase is the coarse state of a pod.
type PodPhase string

// Pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
)

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// Pod conditions.
const (
	PodInitialized    PodConditionType = "Initialized"
	PodReady          PodConditionType = "Ready"
	PodTerminating    PodConditionType = "Terminating"
	PodDeferCompleted PodConditionType = "DeferCompleted"
)

// PodCondition is one condition of a pod.
type PodCondition struct {
	Type               PodConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	LastTransitionTime *time.Time       `json:"lastTransitionTime,omitempty"`
}

// PodStatus is what a runtime reports about a pod.
type PodStatus struct {
	// UID identifies this pod incarnation; it is never reused and never changes.
	UID                string         `json:"uid"`
	Phase              PodPhase       `json:"phase"`
	Conditions         []PodCondition `json:"conditions,omitempty"`
	ObservedGeneration int64          `json:"observedGeneration,omitempty"`
	// Reason and Message explain a terminal phase (e.g. DeadlineExceeded, SupervisorLost).
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// ExitCode is set once the pod is terminal.
	ExitCode *int32 `json:"exitCode,omitempty"`
	// DecidedBy names the container whose exit decided the result.
	DecidedBy              string            `json:"decidedBy,omitempty"`
	StartedAt              *time.Time        `json:"startedAt,omitempty"`
	FinishedAt             *time.Time        `json:"finishedAt,omitempty"`
	InitContainerStatuses  []ContainerStatus `json:"initContainerStatuses,omitempty"`
	ContainerStatuses      []ContainerStatus `json:"containerStatuses,omitempty"`
	DeferContainerStatuses []ContainerStatus `json:"deferContainerStatuses,omitempty"`
}

// ContainerStatus is the status of one container (all of its instances).
type ContainerStatus struct {
	Name string `json:"name"`
	// ContainerID identifies the current instance; it changes on every restart.
	ContainerID string `json:"containerID,omitempty"`
	Image       string `json:"image"`
	// ImageID is the image the runtime resolved at creation, by digest (IMG-016):
	// HOST/PATH@sha256:HEX for a registry image, oci:PATH@sha256:HEX for a layout.
	ImageID      string         `json:"imageID,omitempty"`
	RestartCount int32          `json:"restartCount"`
	Started      bool           `json:"started"`
	Ready        bool           `json:"ready"`
	State        ContainerState `json:"state"`
	LastState    ContainerState `json:"lastState,omitempty"`
}

// ContainerState is exactly one of its members (or none before anything happened).
type ContainerState struct {
	Waiting    *ContainerStateWaiting    `json:"waiting,omitempty"`
	Running    *ContainerStateRunning    `json:"running,omitempty"`
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
	// Skipped is set on a defer container that never ran, with the reason why.
	Skipped *ContainerStateSkipped `json:"skipped,omitempty"`
}

// ContainerStateWaiting is a container not yet running.
type ContainerStateWaiting struct {
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	StartedAt time.Time `json:"startedAt"`
}

// ContainerStateSkipped is a container that will never run in this pod.
type ContainerStateSkipped struct {
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// Signal is a signal by name and number.
type Signal struct {
	Name   string `json:"name"`
	Number int32  `json:"number"`
}

// ContainerStateTerminated is how a container instance ended. ExitCode is set iff the process
// exited; Signal is set iff a signal killed it. Never both, and never 128+N in ExitCode.
type ContainerStateTerminated struct {
	ExitCode    *int32    `json:"exitCode,omitempty"`
	Signal      *Signal   `json:"signal,omitempty"`
	Reason      string    `json:"reason"`
	Message     string    `json:"message,omitempty"`
	StartedAt   time.Time `json:"startedAt"`
	FinishedAt  time.Time `json:"finishedAt"`
	OOMKilled   bool      `json:"oomKilled,omitempty"`
	CoreDumped  bool      `json:"coreDumped,omitempty"`
	ContainerID string    `json:"containerID,omitempty"`
}

// Termination reasons of a container instance.
const (
	ReasonCompleted        = "Completed"
	ReasonError            = "Error"
	ReasonSignaled         = "Signaled"
	ReasonOOMKilled        = "OOMKilled"
	ReasonStoppedByPolicy  = "StoppedByPolicy"
	ReasonStopped          = "Stopped"
	ReasonDeadlineExceeded = "DeadlineExceeded"
	ReasonEvicted          = "Evicted"
	ReasonDependencyFailed = "DependencyFailed"
	ReasonForced           = "Forced"
	ReasonTimeout          = "Timeout"
	ReasonStartError       = "StartError"
)

// Notification triggers a notifier in the containers of selected pods.
type Notification struct {
	TypeMeta `json:",inline"`
	Metadata ObjectMeta          `json:"metadata"`
	Spec     NotificationSpec    `json:"spec"`
	Status   *NotificationStatus `json:"status,omitempty"`
}

// TargetPolicy says which pods a Notification applies to.
type TargetPolicy string

// Target policies.
const (
	// PreExistingPods fixes the target set, by pod UID, when the Notification is created.
	PreExistingPods TargetPolicy = "PreExistingPods"
	// AllPods also applies to matching pods created later, until the Notification is deleted.
	AllPods TargetPolicy = "AllPods"
)

// NotificationSpec says which notifier to trigger in which pods.
type NotificationSpec struct {
	Notifier string `json:"notifier"`
	// Pods names the target pods; exactly one of Pods or Selector is set.
	Pods     []string       `json:"pods,omitempty"`
	Selector *LabelSelector `json:"selector,omitempty"`
	// TargetPolicy defaults to PreExistingPods.
	TargetPolicy TargetPolicy `json:"targetPolicy,omitempty"`
	// Parallelism bounds how many pods are notified at once; 0 (default) means all.
	Parallelism *int32 `json:"parallelism,omitempty"`
}

// LabelSelector selects objects by labels; all of its terms must match.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorOperator is In, NotIn, Exists or DoesNotExist.
type LabelSelectorOperator string

// Label selector operators.
const (
	SelectorIn           LabelSelectorOperator = "In"
	SelectorNotIn        LabelSelectorOperator = "NotIn"
	SelectorExists       LabelSelectorOperator = "Exists"
	SelectorDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelectorRequirement is one expression of a LabelSelector.
type LabelSelectorRequirement struct {
	Key      string                `json:"key"`
	Operator LabelSelectorOperator `json:"operator"`
	Values   []string              `json:"values,omitempty"`
}

// NotificationPhase is the state of a Notification or of one delivery.
type NotificationPhase string

// Notification and delivery phases.
const (
	NotificationPending   NotificationPhase = "Pending"
	NotificationRunning   NotificationPhase = "Running"
	NotificationSucceeded NotificationPhase = "Succeeded"
	NotificationFailed    NotificationPhase = "Failed"
	NotificationSkipped   NotificationPhase = "Skipped"
)

// Delivery reasons.
const (
	ReasonHandlerFailed        = "HandlerFailed"
	ReasonHandlerTimeout       = "HandlerTimeout"
	ReasonPodTerminated        = "PodTerminated"
	ReasonPodTerminating       = "PodTerminating"
	ReasonContainerRestarted   = "ContainerRestarted"
	ReasonNoMatchingContainers = "NoMatchingContainers"
	ReasonNotEligible          = "NotEligible"
	ReasonPodNotFound          = "PodNotFound"
)

// MaxNotificationFailures bounds NotificationStatus.Failures.
const MaxNotificationFailures = 20

// NotificationStatus is a bounded summary: counts and at most MaxNotificationFailures failures.
// Per-pod detail lives in PodNotificationRecord objects.
type NotificationStatus struct {
	Phase      NotificationPhase     `json:"phase"`
	Targets    int32                 `json:"targets"`
	Pending    int32                 `json:"pending"`
	Running    int32                 `json:"running"`
	Succeeded  int32                 `json:"succeeded"`
	Failed     int32                 `json:"failed"`
	Skipped    int32                 `json:"skipped"`
	Failures   []NotificationFailure `json:"failures,omitempty"`
	StartedAt  *time.Time            `json:"startedAt,omitempty"`
	FinishedAt *time.Time            `json:"finishedAt,omitempty"`
}

// NotificationFailure is one failed or skipped delivery, kept in the bounded status.
type NotificationFailure struct {
	Pod       string `json:"pod"`
	PodUID    string `json:"podUID"`
	Container string `json:"container,omitempty"`
	Reason    string `json:"reason"`
	Message   string `json:"message,omitempty"`
}

// PodNotificationRecord is the per-pod result of a Notification, stored apart from it.
type PodNotificationRecord struct {
	Notification string            `json:"notification"`
	Pod          string            `json:"pod"`
	PodUID       string            `json:"podUID"`
	Phase        NotificationPhase `json:"phase"`
	// Reason explains a pod-level outcome (NoMatchingContainers, PodTerminating, PodTerminated).
	Reason     string              `json:"reason,omitempty"`
	Containers []ContainerDelivery `json:"containers"`
	StartedAt  *time.Time          `json:"startedAt,omitempty"`
	FinishedAt *time.Time          `json:"finishedAt,omitempty"`
}

// ContainerDelivery is the outcome of one notifier run in one container instance.
type ContainerDelivery struct {
	Name        string            `json:"name"`
	ContainerID string            `json:"containerID,omitempty"`
	Phase       NotificationPhase `json:"phase"`
	Reason      string            `json:"reason,omitempty"`
	Message     string            `json:"message,omitempty"`
	StartedAt   *time.Time        `json:"startedAt,omitempty"`
	FinishedAt  *time.Time        `json:"finishedAt,omitempty"`
	ExitCode    *int32            `json:"exitCode,omitempty"`
}
