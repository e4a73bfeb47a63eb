package validation

import (
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

func TestValidateNotification(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(n *v1alpha1.Notification)
		want   []string
	}{
		{"a notification naming pods instead of a selector is accepted", func(n *v1alpha1.Notification) {
			n.Spec.Selector = nil
			n.Spec.Pods = []string{"shard-7", "shard-8"}
		}, nil},
		{"a notification with both pods and selector is rejected", func(n *v1alpha1.Notification) { n.Spec.Pods = []string{"shard-7"} }, []string{"NOTIF-001 spec.selector"}},
		{"a notification with neither pods nor selector is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector = nil }, []string{"NOTIF-001 spec"}},
		{"an empty pod list is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector = nil; n.Spec.Pods = []string{} }, []string{"NOTIF-001 spec.pods"}},
		{"a pod name that is no DNS label is rejected", func(n *v1alpha1.Notification) {
			n.Spec.Selector = nil
			n.Spec.Pods = []string{"shard-7", "Shard_8"}
		}, []string{"NOTIF-001 spec.pods[1]"}},
		{"a pod named twice is rejected", func(n *v1alpha1.Notification) {
			n.Spec.Selector = nil
			n.Spec.Pods = []string{"shard-7", "shard-7"}
		}, []string{"NOTIF-001 spec.pods[1]"}},
		{"a negative parallelism is rejected", func(n *v1alpha1.Notification) { n.Spec.Parallelism = ptr[int32](-1) }, []string{"NOTIF-001 spec.parallelism"}},
		{"an invalid notifier name is rejected", func(n *v1alpha1.Notification) { n.Spec.Notifier = "-quiesce" }, []string{"NOTIF-001 spec.notifier"}},
		{"a missing notifier is a required-field error", func(n *v1alpha1.Notification) { n.Spec.Notifier = "" }, []string{"MAN-003 spec.notifier"}},
		{"an invalid matchLabels value is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector.MatchLabels["app"] = "d b" }, []string{"ID-003 spec.selector.matchLabels[app]"}},
		{"an In expression without values is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector.MatchExpressions[0].Values = nil }, []string{"NOTIF-001 spec.selector.matchExpressions[0].values"}},
		{"an Exists expression with values is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector.MatchExpressions[1].Values = []string{"x"} }, []string{"NOTIF-001 spec.selector.matchExpressions[1].values"}},
		{"an unknown operator is rejected", func(n *v1alpha1.Notification) { n.Spec.Selector.MatchExpressions[1].Operator = "Matches" }, []string{"MAN-002 spec.selector.matchExpressions[1].operator"}},
		{"an unknown target policy is rejected", func(n *v1alpha1.Notification) { n.Spec.TargetPolicy = "SomePods" }, []string{"MAN-002 spec.targetPolicy"}},
		{"a notification name that is no DNS label is rejected", func(n *v1alpha1.Notification) { n.Metadata.Name = "Quiesce" }, []string{"ID-001 metadata.name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := baseNotification(t)
			tc.mutate(n)
			n.SetDefaults()
			checkFindings(t, ValidateNotification(n), tc.want)
		})
	}
}

func TestNilObjectsDoNotPanic(t *testing.T) {
	if errs := ValidatePod(nil); len(errs) != 1 || errs[0].Rule != spec.MAN003 {
		t.Errorf("ValidatePod(nil) = %v", errs)
	}
	if errs := ValidateNotification(nil); len(errs) != 1 || errs[0].Rule != spec.MAN003 {
		t.Errorf("ValidateNotification(nil) = %v", errs)
	}
	if errs := ValidatePodUpdate(nil, &v1alpha1.Pod{}); len(errs) != 1 {
		t.Errorf("ValidatePodUpdate(nil, pod) = %v", errs)
	}
	if ch := MutableChanges(nil, nil); !ch.Empty() {
		t.Errorf("MutableChanges(nil, nil) = %+v", ch)
	}
	// An undefaulted, nearly empty pod must not panic either.
	var p v1alpha1.Pod
	p.Spec.Containers = []v1alpha1.Container{{Lifecycle: &v1alpha1.Lifecycle{PreStop: &v1alpha1.LifecycleHandler{Sleep: &v1alpha1.SleepAction{Seconds: 1 << 62}}}, Notifiers: []v1alpha1.Notifier{{}}}}
	p.Spec.DeferContainers = []v1alpha1.DeferContainer{{TimeoutSeconds: ptr[int64](1 << 62)}, {TimeoutSeconds: ptr[int64](1 << 62)}}
	p.Spec.Volumes = []v1alpha1.Volume{{}}
	if errs := ValidatePod(&p); len(errs) == 0 {
		t.Error("an empty pod validated without findings")
	}
}
