package v1

import (
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

// EventType is the type of an event (section 5.2). A runtime MAY record further types; a
// harness ignores types it does not know.
type EventType string

// Event types of the contract (section 5.2), in the order a pod's life usually produces them.
const (
	// EventPodCreated: the pod is created (first event, seq 1).
	EventPodCreated EventType = "PodCreated"
	// EventPodStarted: the pod's sandbox exists and the first container is about to be created.
	EventPodStarted EventType = "PodStarted"
	// EventContainerCreated: a container instance is created (its process is not running yet).
	EventContainerCreated EventType = "ContainerCreated"
	// EventContainerStarted: the instance's process is running (never before); for defers this
	// is the defer start.
	EventContainerStarted EventType = "ContainerStarted"
	// EventContainerReady: the container became Started-and-Ready.
	EventContainerReady EventType = "ContainerReady"
	// EventProbeFailed: a probe reached its failure threshold.
	EventProbeFailed EventType = "ProbeFailed"
	// EventHookStarted: a postStart or preStop handler began.
	EventHookStarted EventType = "HookStarted"
	// EventHookFinished: a postStart or preStop handler ended.
	EventHookFinished EventType = "HookFinished"
	// EventSignalSent: the runtime sent a signal to a container.
	EventSignalSent EventType = "SignalSent"
	// EventContainerExited: the runtime observed an instance's end (exit or signal), or recorded
	// it lost (reason ExitStatusLost, neither exitCode nor signal).
	EventContainerExited EventType = "ContainerExited"
	// EventContainerRestarting: a restart was decided (the back-off delay in message).
	EventContainerRestarting EventType = "ContainerRestarting"
	// EventContainerSkipped: a container will never run (reason: Forced, DependencyFailed, ...).
	EventContainerSkipped EventType = "ContainerSkipped"
	// EventDependencyFailed: a main container will not start because a dependency failed.
	EventDependencyFailed EventType = "DependencyFailed"
	// EventPolicyFired: the exit policy ended the pod (reason All, Any or AnyFailure).
	EventPolicyFired EventType = "PolicyFired"
	// EventStopRequested: a stop request was recorded (also for a deadline).
	EventStopRequested EventType = "StopRequested"
	// EventPodTerminating: the stop sequence began.
	EventPodTerminating EventType = "PodTerminating"
	// EventNotifierStarted: a notifier handler began in a container instance.
	EventNotifierStarted EventType = "NotifierStarted"
	// EventNotifierFinished: a notifier handler ended in a container instance.
	EventNotifierFinished EventType = "NotifierFinished"
	// EventUpdateApplied: an update was applied.
	EventUpdateApplied EventType = "UpdateApplied"
	// EventPodFinished: the pod is terminal; the last event of the pod.
	EventPodFinished EventType = "PodFinished"
)

// EventTypes lists the contract's event types in the order of section 5.2's table.
var EventTypes = []EventType{EventPodCreated, EventPodStarted, EventContainerCreated,
	EventContainerStarted, EventContainerReady, EventProbeFailed, EventHookStarted,
	EventHookFinished, EventSignalSent, EventContainerExited, EventContainerRestarting,
	EventContainerSkipped, EventDependencyFailed, EventPolicyFired, EventStopRequested,
	EventPodTerminating, EventNotifierStarted, EventNotifierFinished, EventUpdateApplied,
	EventPodFinished}

// Values of the enumerated event fields (section 5.1).
const (
	// HookPostStart and HookPreStop are the values of Hook.
	HookPostStart = "postStart"
	HookPreStop   = "preStop"
	// ProbeStartup, ProbeReadiness and ProbeLiveness are the values of Probe.
	ProbeStartup   = "startup"
	ProbeReadiness = "readiness"
	ProbeLiveness  = "liveness"
	// ResultSucceeded, ResultFailed and ResultTimeout are the values of Result.
	ResultSucceeded = "Succeeded"
	ResultFailed    = "Failed"
	ResultTimeout   = "Timeout"
)

// Event is one event of a pod's history, one JSON line of `events POD` (section 5.1). Its
// structural rules (which fields, their types, enums and bounds) are the JSON Schema Event;
// which fields an event of a type carries is section 5.1's table.
type Event struct {
	// Seq is 1 for the first event of a pod, then +1 per event (no gaps, no repeats).
	Seq int64 `json:"seq"`
	// Time is when the event happened (host real-time clock), RFC 3339 with nanoseconds.
	Time time.Time `json:"time"`
	// Type is the event type (section 5.2).
	Type   EventType `json:"type"`
	Pod    string    `json:"pod"`
	PodUID string    `json:"podUID"`
	// Container and ContainerKind (init, sidecar, main or defer) are set on container events.
	Container     string `json:"container,omitempty"`
	ContainerKind string `json:"containerKind,omitempty"`
	// ContainerID and RestartCount are set on events about a container instance; the ID
	// changes on every restart and equals the status' containerID.
	ContainerID  string `json:"containerID,omitempty"`
	RestartCount *int32 `json:"restartCount,omitempty"`
	// PID is the host process ID of the instance's process, where the runtime knows it
	// (ContainerStarted, ContainerExited); informational.
	PID int `json:"pid,omitempty"`
	// ExitCode is set on ContainerExited iff the process exited (never 128+N), and on
	// PodFinished (the pod's exit code).
	ExitCode *int32 `json:"exitCode,omitempty"`
	// Signal is set on ContainerExited iff a signal killed the process, and on SignalSent (the
	// signal sent).
	Signal *v1alpha1.Signal `json:"signal,omitempty"`
	// Reason is set on ContainerExited (the status' terminated reason), ContainerSkipped,
	// PolicyFired, PodFinished, ProbeFailed, DependencyFailed and StopRequested (for a
	// deadline); Message is free text anywhere.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Hook is HookPostStart or HookPreStop on HookStarted and HookFinished.
	Hook string `json:"hook,omitempty"`
	// Probe is ProbeStartup, ProbeReadiness or ProbeLiveness on ProbeFailed.
	Probe string `json:"probe,omitempty"`
	// Phase is the pod's final phase on PodFinished.
	Phase v1alpha1.PodPhase `json:"phase,omitempty"`
	// DecidedBy is the deciding container on PodFinished.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Result is ResultSucceeded, ResultFailed or ResultTimeout on HookFinished and
	// NotifierFinished.
	Result string `json:"result,omitempty"`
	// GracePeriodSeconds and Force describe a stop on StopRequested.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	Force              bool   `json:"force,omitempty"`
	// Notifier and Notification name a delivery on NotifierStarted and NotifierFinished.
	Notifier     string `json:"notifier,omitempty"`
	Notification string `json:"notification,omitempty"`
	// Generation is the applied generation on UpdateApplied.
	Generation int64 `json:"generation,omitempty"`
}
