package main

import (
	"context"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// podEvents reads the events of a pod of the reference runtime for `podspec timeline POD`, and
// the grace budget to draw (grace if given, else the pod's terminationGracePeriodSeconds).
func (f *rtFlags) podEvents(ctx context.Context, name string, grace *time.Duration) ([]runtimev1.Event, *time.Duration, error) {
	p, release, err := f.pod(name)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	if err := f.ensureSupervisor(ctx, p); err != nil {
		return nil, nil, err
	}
	evs, err := p.ReadEvents(0)
	if err != nil {
		return nil, nil, err
	}
	st, err := p.ReadState()
	if err != nil {
		return nil, nil, err
	}
	if grace == nil {
		g := time.Duration(v1alpha1.DefaultTerminationGracePeriodSeconds) * time.Second
		if s := st.Pod.Spec.TerminationGracePeriodSeconds; s != nil {
			g = time.Duration(*s) * time.Second
		}
		grace = &g
	}
	return evs, grace, nil
}
