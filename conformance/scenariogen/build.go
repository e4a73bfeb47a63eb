package scenariogen

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
)

// Back-off of every generated pod: short, so that restarts happen within a scenario's seconds.
const (
	backoffInitial    = 0.5
	backoffFactor     = 2
	backoffMax        = 2
	backoffResetAfter = 10
)

// millis is a duration in milliseconds.
func millis(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Build renders the scenario's pod for the framework.
func (s *Scenario) Build() *fw.PodBuilder {
	b := fw.NewPod().RestartPolicy(s.RestartPolicy).ExitPolicy(s.ExitPolicy).Grace(s.GraceSeconds).
		Backoff(backoffInitial, backoffFactor, backoffMax, backoffResetAfter)
	if s.DeadlineSeconds > 0 {
		b.Deadline(s.DeadlineSeconds)
	}
	for _, c := range s.Containers {
		w := workload(c)
		switch c.Kind {
		case KindInit:
			b.Init(c.Name, w)
		case KindSidecar:
			b.Sidecar(c.Name, w, options(c)...)
		case KindMain:
			opts := options(c)
			if c.RestartPolicy != "" {
				opts = append(opts, fw.WithRestartPolicy(c.RestartPolicy))
			}
			for _, d := range c.DependsOn {
				opts = append(opts, fw.DependsOn(d.Name, d.Condition))
			}
			b.Main(c.Name, w, opts...)
		case KindDefer:
			opts := []fw.DeferOpt{fw.DeferPhase(c.Phase), fw.DeferOnFailure(c.OnFailure)}
			if c.TimeoutSeconds > 0 {
				opts = append(opts, fw.DeferTimeout(c.TimeoutSeconds))
			}
			b.Defer(c.Name, w, opts...)
		}
	}
	return b
}

// workload is the probe command line of a container's own process.
func workload(c Container) fw.Workload {
	w := fw.ExitAfter(0, millis(c.RunMillis)).Codes(c.Plan...)
	if c.Crash {
		w = w.CrashAfter(millis(max(c.RunMillis, 1)))
	}
	if c.OnStop != "" {
		w = w.On(stopSignal(c), c.OnStop)
	}
	if c.Readiness != nil && c.Readiness.Marker {
		w = w.Announce(markerFile(c.Name))
	}
	return w
}

func stopSignal(c Container) string {
	if c.StopSignal != "" {
		return c.StopSignal
	}
	return v1alpha1.DefaultStopSignal
}

// options are a running container's stop signal, probes, hooks and notifiers.
func options(c Container) []fw.ContainerOpt {
	var opts []fw.ContainerOpt
	if c.StopSignal != "" {
		opts = append(opts, fw.WithStopSignal(c.StopSignal))
	}
	check := func(ch *Check, declare func(fw.Handler, fw.ProbeTiming) fw.ContainerOpt) {
		if ch == nil {
			return
		}
		h := fw.CheckExit(ch.Exit)
		if ch.Marker {
			h = fw.CheckMarker(markerFile(c.Name))
		}
		opts = append(opts, declare(h, fw.ProbeTiming{PeriodSeconds: ch.PeriodSeconds, FailureThreshold: ch.FailureThreshold}))
	}
	check(c.Startup, fw.Startup)
	check(c.Readiness, fw.Readiness)
	check(c.Liveness, fw.Liveness)
	if h := c.PostStart; h != nil {
		opts = append(opts, fw.PostStart(fw.HookHandler(millis(h.SleepMillis), h.Exit)))
	}
	if h := c.PreStop; h != nil {
		opts = append(opts, fw.PreStop(fw.HookHandler(millis(h.SleepMillis), h.Exit)))
	}
	for _, n := range c.Notifiers {
		if n.Signal != "" {
			opts = append(opts, fw.NotifierSignal(n.Name, n.Signal))
		} else {
			opts = append(opts, fw.NotifierExec(n.Name, fw.HookHandler(millis(n.SleepMillis), n.Exit)))
		}
	}
	return opts
}

// markerFile is the readiness marker of a container in the probe directory.
func markerFile(container string) string { return container + ".ready" }

// updateLabel is the label an update action changes.
const updateLabel = "podspec.dev/random-update"

// Drive returns the framework Drive that acts out the schedule on the pod: each action at its
// time after `run --detach` returned, until the pod is terminal (the actions left are then
// skipped: on a terminal pod a stop changes nothing and an update is refused). The wait between
// actions reads the pod's events, so the first verb after a crash, which adopts the pod, comes at
// most framework.PollInterval after it.
func (s *Scenario) Drive(f *fw.Framework) func(context.Context, *fw.Pod) error {
	return func(ctx context.Context, p *fw.Pod) error {
		start := time.Now()
		updates := 0
		for _, a := range s.Schedule {
			if d := time.Until(start.Add(millis(a.AtMillis))); d > 0 {
				_, err := p.WaitFor(ctx, "the pod's end", d, func(tl *fw.Timeline) bool {
					_, done := tl.First(fw.RuntimeEv(runtimev1.EventPodFinished, ""))
					return done
				})
				if err == nil {
					return nil // terminal: nothing left to do
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
			}
			if err := s.act(ctx, f, p, a, &updates); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
		}
		return nil
	}
}

// act carries out one action.
func (s *Scenario) act(ctx context.Context, f *fw.Framework, p *fw.Pod, a Action, updates *int) error {
	switch a.Verb {
	case VerbStop:
		return p.Stop(ctx, a.Grace, false)
	case VerbKill:
		return p.Stop(ctx, nil, true)
	case VerbNotify:
		_, err := f.NotifyPod(ctx, p, a.Target)
		return err
	case VerbUpdate:
		*updates++
		_, res, err := p.Update(ctx, s.Build().Labels(map[string]string{updateLabel: strconv.Itoa(*updates)}))
		if err == nil && res.ExitCode != runtimev1.ExitOK && res.ExitCode != runtimev1.ExitConflict {
			err = &fw.CommandError{Result: res}
		}
		return err // Conflict: the pod became terminal meanwhile
	case VerbCrash:
		if _, err := p.Crash(ctx); err != nil {
			// `crash` of a pod that became terminal meanwhile may fail: nothing supervises it.
			if st, serr := p.Status(ctx); serr == nil && terminal(st.Phase) {
				return nil
			}
			return err
		}
		return nil
	case VerbReady:
		return p.Touch(markerFile(a.Target))
	case VerbUnready:
		return p.Remove(markerFile(a.Target))
	}
	return errors.New("unknown action")
}

func terminal(phase v1alpha1.PodPhase) bool {
	return phase == v1alpha1.PodSucceeded || phase == v1alpha1.PodFailed
}
