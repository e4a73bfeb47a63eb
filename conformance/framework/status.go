package framework

import (
	"encoding/json"
	"fmt"

	"podspec.dev/podspec/api/v1alpha1"
)

// PodStatusView is a PodStatus with lookups for assertions.
type PodStatusView struct {
	*v1alpha1.PodStatus
}

// Container returns the status of a container of any kind, or nil.
func (s *PodStatusView) Container(name string) *v1alpha1.ContainerStatus {
	for _, list := range [][]v1alpha1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.DeferContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// Terminated returns the container's current terminated state, or nil.
func (s *PodStatusView) Terminated(name string) *v1alpha1.ContainerStateTerminated {
	if c := s.Container(name); c != nil {
		return c.State.Terminated
	}
	return nil
}

// Condition returns a pod condition, or nil.
func (s *PodStatusView) Condition(t v1alpha1.PodConditionType) *v1alpha1.PodCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// String renders the status as indented JSON for failure messages.
func (s *PodStatusView) String() string {
	if s == nil || s.PodStatus == nil {
		return "<no status>"
	}
	b, err := json.MarshalIndent(s.PodStatus, "", "  ")
	if err != nil {
		return fmt.Sprintf("%+v", *s.PodStatus)
	}
	return string(b)
}
