package framework

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// Scenario is one pod run that feeds several assertions (one per requirement). Scenarios are
// declared while the suite's tree is built and run later, possibly ahead of time and
// concurrently (Scenarios.Prefetch), because most of a lifecycle test is waiting.
type Scenario struct {
	// Short names the pod (prefixed with the run ID); unique per suite.
	Short string
	// Pod describes the pod.
	Pod *PodBuilder
	// Drive acts on the pod after `run --detach` succeeded (wait for something, stop it, ...).
	Drive func(ctx context.Context, p *Pod) error
	// Refused marks a scenario whose manifest the runtime must refuse: it is not waited for.
	Refused bool
	// Profile is the capability profile the scenario needs ("" is core).
	Profile runtimev1.Profile
	// Needs lists further optional profiles the scenario needs (e.g. recovery for a `crash`).
	Needs []runtimev1.Profile

	once sync.Once
	done chan struct{}
	out  *Outcome
}

// Outcome is what a scenario produced.
type Outcome struct {
	Pod *Pod
	// Final is the status `wait` returned (nil for refused pods).
	Final *PodStatusView
	// Timeline is the merged timeline after the pod became terminal.
	Timeline *Timeline
	// Err is the first harness-level or contract-level problem (the runtime refused a valid pod,
	// wait timed out, a verb failed, ...).
	Err error
	// Took is the wall time from `run` to the final timeline.
	Took time.Duration
	// EvidenceErr is set when the failure evidence of a failed scenario could not be written.
	EvidenceErr error
}

// Scenarios runs the scenarios of a suite.
type Scenarios struct {
	mu       sync.Mutex
	list     []*Scenario
	byName   map[string]*Scenario
	f        *Framework
	sem      chan struct{}
	launched []*Scenario
	// base is the context every scenario runs under; CancelAll ends it.
	base   context.Context
	cancel context.CancelFunc
}

// NewScenarios makes an empty set; parallel bounds how many scenarios run at once.
func NewScenarios(parallel int) *Scenarios {
	if parallel < 1 {
		parallel = 1
	}
	base, cancel := context.WithCancel(context.Background())
	return &Scenarios{byName: map[string]*Scenario{}, sem: make(chan struct{}, parallel), base: base, cancel: cancel}
}

// CancelAll stops every scenario still running or waiting to run (after the last spec, or on an
// interrupt); their pods are removed by CleanupAll.
func (s *Scenarios) CancelAll() { s.cancel() }

// Add declares a scenario. It panics on a duplicate name: that is a bug in the suite.
func (s *Scenarios) Add(sc *Scenario) *Scenario {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.byName[sc.Short]; dup {
		panic(fmt.Sprintf("conformance: duplicate scenario %q", sc.Short))
	}
	sc.done = make(chan struct{})
	s.byName[sc.Short] = sc
	s.list = append(s.list, sc)
	return sc
}

// Bind gives the scenarios the framework they run with (once the runtime is known).
func (s *Scenarios) Bind(f *Framework) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.f = f
}

// Len is the number of declared scenarios.
func (s *Scenarios) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

// List returns the declared scenarios, in declaration order.
func (s *Scenarios) List() []*Scenario {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Scenario(nil), s.list...)
}

// Prefetch launches every declared scenario for which want returns true; they run in the
// background, at most parallel at a time, until they end or CancelAll.
func (s *Scenarios) Prefetch(want func(*Scenario) bool) {
	s.mu.Lock()
	list := append([]*Scenario(nil), s.list...)
	s.mu.Unlock()
	for _, sc := range list {
		if want == nil || want(sc) {
			s.launch(sc)
		}
	}
}

// launch starts a scenario once, under the scenarios' base context.
func (s *Scenarios) launch(sc *Scenario) {
	ctx := s.base
	sc.once.Do(func() {
		s.mu.Lock()
		f := s.f
		s.launched = append(s.launched, sc)
		s.mu.Unlock()
		go func() {
			defer close(sc.done)
			if f == nil {
				sc.out = &Outcome{Err: errors.New("scenario launched before the framework was bound")}
				return
			}
			select {
			case s.sem <- struct{}{}:
			case <-ctx.Done():
				sc.out = &Outcome{Err: ctx.Err()}
				return
			}
			defer func() { <-s.sem }()
			sc.out = sc.run(ctx, f)
		}()
	})
}

// Await launches the scenario if needed and waits for its outcome.
func (s *Scenarios) Await(ctx context.Context, sc *Scenario) *Outcome {
	// The scenario runs under the base context, not the caller's: a prefetched scenario must not
	// die with the spec that happened to wait for it first.
	s.launch(sc)
	select {
	case <-sc.done:
		return sc.out
	case <-ctx.Done():
		return &Outcome{Err: fmt.Errorf("waiting for scenario %s: %w", sc.Short, ctx.Err())}
	}
}

func (sc *Scenario) run(ctx context.Context, f *Framework) *Outcome {
	start := time.Now()
	out := &Outcome{}
	defer func() { out.Took = time.Since(start) }()
	p, err := f.Submit(ctx, sc.Short, sc.Pod)
	out.Pod = p
	if err != nil {
		out.Err = err
		return out
	}
	if sc.Refused {
		if p.Created() {
			out.Err = fmt.Errorf("the runtime accepted pod %s, which must be refused:\n%s", p.Name, p.RunResult)
		}
		return out
	}
	if !p.Created() {
		out.Err = fmt.Errorf("the runtime refused pod %s:\n%s", p.Name, p.RunResult)
		return out
	}
	if sc.Drive != nil {
		if err := sc.Drive(ctx, p); err != nil {
			out.Err = fmt.Errorf("drive pod %s: %w", p.Name, err)
			// At once: the pod is still as the failure left it.
			out.EvidenceErr = f.KeepEvidence(ctx, p, fmt.Sprintf("scenario %s failed: %v", sc.Short, out.Err))
		}
	}
	final, err := p.Wait(ctx)
	out.Final = final
	if err != nil && out.Err == nil {
		out.Err = err
		out.EvidenceErr = f.KeepEvidence(ctx, p, fmt.Sprintf("scenario %s failed: %v", sc.Short, out.Err))
	}
	tl, err := p.Timeline(ctx)
	out.Timeline = tl
	if err != nil && out.Err == nil {
		out.Err = fmt.Errorf("read events of %s: %w", p.Name, err)
	}
	return out
}

// Profiles lists every optional profile the scenario needs: Profile, then Needs.
func (sc *Scenario) Profiles() []runtimev1.Profile {
	var out []runtimev1.Profile
	if sc.Profile != "" {
		out = append(out, sc.Profile)
	}
	return append(out, sc.Needs...)
}

// Cleanup removes the scenario's pod (if it ran); safe to call more than once and for
// scenarios that never launched.
func (s *Scenarios) Cleanup(ctx context.Context, sc *Scenario) error {
	select {
	case <-sc.done:
	default:
		return nil
	}
	if sc.out == nil || sc.out.Pod == nil {
		return nil
	}
	return sc.out.Pod.Cleanup(ctx)
}

// CleanupTimeout bounds CleanupAll. Clean-up runs even when the run was interrupted (its
// context is detached from the caller's), because leaving pods behind is worse than a late exit.
const CleanupTimeout = 5 * time.Minute

// CleanupAll waits for every launched scenario and removes its pod, a few at a time.
func (s *Scenarios) CleanupAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
	defer cancel()
	s.mu.Lock()
	launched := append([]*Scenario(nil), s.launched...)
	s.mu.Unlock()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 4)
	)
	for _, sc := range launched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-sc.done:
			case <-ctx.Done():
				mu.Lock()
				errs = append(errs, fmt.Errorf("clean up %s: %w", sc.Short, ctx.Err()))
				mu.Unlock()
				return
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := s.Cleanup(ctx, sc); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("clean up %s: %w", sc.Short, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// CleanupPods removes every pod the framework submitted (scenario or not), a few at a time, with
// a context detached from ctx (see CleanupTimeout).
func (f *Framework) CleanupPods(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
	defer cancel()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 4)
	)
	for _, p := range f.Pods() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := p.cleanup(ctx, true); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("clean up %s: %w", p.Name, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// StopWhen returns a Drive function that waits until cond holds on the timeline and then
// requests a stop (grace nil: the pod's own).
func StopWhen(what string, cond func(*Timeline) bool, grace *int64, force bool) func(context.Context, *Pod) error {
	return func(ctx context.Context, p *Pod) error {
		if _, err := p.WaitFor(ctx, what, p.f.cfg.Tolerances.PodTimeout.Value, cond); err != nil {
			return err
		}
		return p.Stop(ctx, grace, force)
	}
}

// AllStarted is a condition: every named container's workload has reported a start.
func AllStarted(names ...string) func(*Timeline) bool {
	return func(tl *Timeline) bool {
		for _, n := range names {
			if !tl.Started(n) {
				return false
			}
		}
		return true
	}
}

// StartRecorded is a condition: every named container's workload has reported a start and the
// runtime has recorded one (ContainerStarted). The workload's report can come first (a runtime
// learns of the start only after its OCI runtime returns), so a Drive that reads what the start
// sets in the status (phase Running, startedAt) waits for this, not for AllStarted.
func StartRecorded(names ...string) func(*Timeline) bool {
	return func(tl *Timeline) bool {
		for _, n := range names {
			if _, ok := tl.First(RuntimeEv(runtimev1.EventContainerStarted, n)); !ok || !tl.Started(n) {
				return false
			}
		}
		return true
	}
}
