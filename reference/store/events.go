package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

// Event types the reference runtime emits, in the order a pod's life usually produces them.
const (
	EventPodCreated          = "PodCreated"
	EventPodStarted          = "PodStarted"
	EventContainerCreated    = "ContainerCreated"
	EventContainerStarted    = "ContainerStarted"
	EventStartupSucceeded    = "StartupProbeSucceeded"
	EventContainerReady      = "ContainerReady"
	EventContainerNotReady   = "ContainerNotReady"
	EventProbeFailed         = "ProbeFailed"
	EventHookStarted         = "HookStarted"
	EventHookFinished        = "HookFinished"
	EventSignalSent          = "SignalSent"
	EventContainerExited     = "ContainerExited"
	EventContainerRestarting = "ContainerRestarting"
	EventContainerSkipped    = "ContainerSkipped"
	EventDependencyFailed    = "DependencyFailed"
	EventPolicyFired         = "PolicyFired"
	EventStopRequested       = "StopRequested"
	EventPodTerminating      = "PodTerminating"
	EventSupervisorAdopted   = "SupervisorAdopted"
	EventPodFinished         = "PodFinished"
)

// Event is one line of a pod's events log.
type Event struct {
	Seq           int64            `json:"seq"`
	Time          time.Time        `json:"time"`
	Type          string           `json:"type"`
	Pod           string           `json:"pod"`
	PodUID        string           `json:"podUID"`
	Container     string           `json:"container,omitempty"`
	ContainerKind string           `json:"containerKind,omitempty"`
	ContainerID   string           `json:"containerID,omitempty"`
	PID           int              `json:"pid,omitempty"`
	RestartCount  *int32           `json:"restartCount,omitempty"`
	ExitCode      *int32           `json:"exitCode,omitempty"`
	Signal        *v1alpha1.Signal `json:"signal,omitempty"`
	Reason        string           `json:"reason,omitempty"`
	Message       string           `json:"message,omitempty"`
	// Hook is postStart or preStop on Hook events; Probe is startup, readiness or liveness.
	Hook  string `json:"hook,omitempty"`
	Probe string `json:"probe,omitempty"`
	// Phase is the pod phase on PodFinished.
	Phase v1alpha1.PodPhase `json:"phase,omitempty"`
	// DecidedBy is the deciding container on PodFinished.
	DecidedBy string `json:"decidedBy,omitempty"`
	// Result is Succeeded, Failed or Timeout on HookFinished (and NotifierFinished).
	Result string `json:"result,omitempty"`
	// GracePeriodSeconds and Force describe a stop on StopRequested.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	Force              bool   `json:"force,omitempty"`
	// Notifier and Notification name a delivery on NotifierStarted/NotifierFinished.
	Notifier     string `json:"notifier,omitempty"`
	Notification string `json:"notification,omitempty"`
	// Generation is the applied generation on UpdateApplied.
	Generation int64 `json:"generation,omitempty"`
}

// EventLog appends events to a pod's events file. One writer (the supervisor) per pod.
type EventLog struct {
	mu   sync.Mutex
	f    *os.File
	next int64
	last time.Time
}

// OpenEventLog opens the events file for appending. A torn last line (a crash in the middle of
// a write) is cut off, and numbering continues after the last complete event.
func (p *Pod) OpenEventLog() (*EventLog, error) {
	path := p.Path(EventsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open events of %s: %w", p.Name, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read events of %s: %w", p.Name, err)
	}
	good := len(b)
	if good > 0 && b[good-1] != '\n' {
		good = bytes.LastIndexByte(b, '\n') + 1
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair events of %s: %w", p.Name, err)
		}
	}
	var last int64
	var lastTime time.Time
	if i := bytes.LastIndexByte(b[:max(good-1, 0)], '\n'); good > 0 {
		var ev Event
		if json.Unmarshal(b[i+1:good], &ev) == nil {
			last = ev.Seq
			lastTime = ev.Time
		}
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("open events of %s: %w", p.Name, err)
	}
	return &EventLog{f: f, next: last + 1, last: lastTime}, nil
}

// Append numbers the events, writes each as one line, and fsyncs the file.
func (l *EventLog) Append(evs ...*Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var buf bytes.Buffer
	for _, ev := range evs {
		ev.Seq = l.next
		l.next++
		if ev.Time.IsZero() {
			ev.Time = time.Now().UTC()
		}
		// Times never go backwards in sequence order.
		if ev.Time.Before(l.last) {
			ev.Time = l.last
		}
		l.last = ev.Time
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if _, err := l.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("append events: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync events: %w", err)
	}
	return nil
}

// Close closes the log.
func (l *EventLog) Close() error { return l.f.Close() }

// ReadEvents returns every complete event of the pod with a sequence number above after.
func (p *Pod) ReadEvents(after int64) ([]Event, error) {
	f, err := os.Open(p.Path(EventsFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read events of %s: %w", p.Name, err)
	}
	defer f.Close()
	var out []Event
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A line without its newline is still being written (or torn): not an event yet.
			break
		}
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		if ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out, nil
}

// FollowEvents calls fn for every event in order, starting after seq after, and keeps polling
// for new ones until fn returns false, ctx ends, or done reports that no more events will come
// (checked only after the log has been read to its end).
func (p *Pod) FollowEvents(ctx context.Context, after int64, done func() bool, fn func(Event) bool) error {
	for {
		evs, err := p.ReadEvents(after)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			after = ev.Seq
			if !fn(ev) {
				return nil
			}
		}
		if len(evs) == 0 && done != nil && done() {
			// One more read: events written between the read and the check.
			evs, err := p.ReadEvents(after)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				if !fn(ev) {
					return nil
				}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
