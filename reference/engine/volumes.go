package engine

import (
	"context"
	"fmt"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// VolumeCheckPeriod is how often the engine measures the pod's disk-backed emptyDir volumes
// that have a sizeLimit (VOL-016). The kubelet measures every 10 s.
const VolumeCheckPeriod = time.Second

// volumeLimit is a disk-backed emptyDir volume's sizeLimit.
type volumeLimit struct {
	name  string
	bytes int64
	text  string // as the manifest writes it
}

// armVolumeLimitsLocked starts measuring the pod's disk-backed emptyDir volumes that have a
// sizeLimit, once their volumes exist (a medium: Memory volume is a tmpfs of that size: the
// kernel bounds it, VOL-006).
func (e *Engine) armVolumeLimitsLocked() {
	var limits []volumeLimit
	for _, v := range e.st.Pod.Spec.Volumes {
		if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.Medium == "Memory" {
			continue
		}
		n, err := v.EmptyDir.SizeLimit.Bytes()
		if err != nil {
			continue // the validator refuses it (RES-001)
		}
		limits = append(limits, volumeLimit{name: v.Name, bytes: n, text: string(*v.EmptyDir.SizeLimit)})
	}
	if len(limits) > 0 {
		go e.watchVolumes(e.runCtx, limits)
	}
}

// watchVolumes measures the volumes every VolumeCheckPeriod until the pod terminates, and
// evicts the pod when one holds more than its limit.
func (e *Engine) watchVolumes(ctx context.Context, limits []volumeLimit) {
	t := time.NewTicker(VolumeCheckPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.finished:
			return
		case <-t.C:
		}
		e.mu.Lock()
		terminating := e.terminating
		e.mu.Unlock()
		if terminating {
			return
		}
		for _, l := range limits {
			used, err := e.be.VolumeUsage(e.info, l.name)
			if err != nil {
				e.logf("volume %s: %v", l.name, err)
				continue
			}
			if used > l.bytes {
				e.evict(ctx, fmt.Sprintf("emptyDir volume %q holds %d bytes, more than its sizeLimit %s", l.name, used, l.text))
				return
			}
		}
	}
}

// evict begins the stop sequence with termination reason Evicted (VOL-016), unless the pod is
// already terminating; msg says why, in status.message.
func (e *Engine) evict(ctx context.Context, msg string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.terminating {
		return
	}
	e.st.Pod.Status.Message = msg
	ev := e.event(runtimev1.EventStopRequested, nil, TerminationEvicted, msg)
	g := e.gracePeriod()
	ev.GracePeriodSeconds = &g
	e.beginStopLocked(ctx, TerminationEvicted, g, false, "", ev)
}
