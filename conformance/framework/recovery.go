package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/schema"
)

// Crash runs `crash POD`: the runtime loses the pod's supervising process(es) abruptly and the
// verb returns once they are gone.
func (r *Runtime) Crash(ctx context.Context, pod string) (*Result, error) {
	return r.must(ctx, nil, "crash", pod)
}

// Crash makes the runtime lose the pod's supervisor and returns when `crash` returned (host
// clock). Until the next verb that touches the pod, nothing supervises it: wait with
// WaitForProbe, not WaitFor (which runs `events`), to keep it that way.
func (p *Pod) Crash(ctx context.Context) (time.Time, error) {
	issued := time.Now()
	res, err := p.f.RT.Crash(ctx, p.Name)
	if err != nil {
		return time.Time{}, err
	}
	p.notesMu.Lock()
	p.crashes = append(p.crashes, CrashLog{Issued: issued, Returned: res.Ended})
	p.notesMu.Unlock()
	return res.Ended, nil
}

// WaitForProbe waits until cond holds for the events the pod's workloads reported, without
// running any runtime verb (a verb could end a supervisor-less window the test needs).
func (p *Pod) WaitForProbe(ctx context.Context, what string, timeout time.Duration, cond func([]probe.Event) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := p.Probe.Wait(ctx, cond); err != nil {
		return fmt.Errorf("waiting %v for %s: %w\n\n%s", timeout, what, err, NewTimeline(p.Probe.Events(), nil))
	}
	return nil
}

// ProbeReported is a WaitForProbe condition: a workload event of a container and type was
// reported (on the socket, so it carries an arrival time).
func ProbeReported(container, typ string) func([]probe.Event) bool {
	return func(evs []probe.Event) bool {
		for _, ev := range evs {
			if !ev.Fallback && ev.Container == container && ev.Role == probe.RoleWorkload && ev.Type == typ {
				return true
			}
		}
		return false
	}
}

// ValidStatus runs `status` and checks that what it printed validates as PodStatus before
// decoding it; the returned Result says when the verb returned.
func (p *Pod) ValidStatus(ctx context.Context) (*PodStatusView, *Result, error) {
	res, err := p.f.RT.must(ctx, nil, "status", p.Name, "-o", "json")
	if err != nil {
		return nil, res, err
	}
	var generic any
	if err := json.Unmarshal(res.Stdout, &generic); err != nil {
		return nil, res, fmt.Errorf("status printed no JSON value: %w\n%s", err, res)
	}
	if errs := schema.ValidateOpen("PodStatus", generic); len(errs) > 0 { // fields of the runtime's own are allowed (section 2)
		return nil, res, fmt.Errorf("status does not validate as PodStatus: %v\n%s", errs, res)
	}
	var st v1alpha1.PodStatus
	if err := json.Unmarshal(res.Stdout, &st); err != nil {
		return nil, res, fmt.Errorf("decode status: %w\n%s", err, res)
	}
	return &PodStatusView{PodStatus: &st}, res, nil
}
