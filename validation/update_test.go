package validation

import (
	"reflect"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

func TestMutableChanges(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p *v1alpha1.Pod)
		want   Changes
	}{
		{"an unchanged pod has no changes", func(p *v1alpha1.Pod) {}, Changes{}},
		{"a label change touches no container", func(p *v1alpha1.Pod) { p.Metadata.Labels["app"] = "db2" }, Changes{Labels: true}},
		{"deadline and grace period changes are reported", func(p *v1alpha1.Pod) {
			p.Spec.ActiveDeadlineSeconds = ptr[int64](10)
			p.Spec.TerminationGracePeriodSeconds = ptr[int64](60)
			p.Metadata.Annotations = nil
		}, Changes{Annotations: true, ActiveDeadlineSeconds: true, TerminationGracePeriodSeconds: true}},
		{"a main container's image change restarts only that container", func(p *v1alpha1.Pod) { p.Spec.Containers[1].Image = "oci:images/api:4" }, Changes{
			Containers: []ContainerChange{{Kind: KindMain, Index: 1, Name: "api", Fields: []string{"image"}, Effect: EffectRestart}},
		}},
		{"env and args changes restart the container", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Env[0].Value = "replica"
			p.Spec.Containers[0].Args = nil
		}, Changes{
			Containers: []ContainerChange{{Kind: KindMain, Index: 0, Name: "db", Fields: []string{"args", "env"}, Effect: EffectRestart}},
		}},
		{"a cpu change with the default resize policy is applied live", func(p *v1alpha1.Pod) { p.Spec.Containers[0].Resources.Limits["cpu"] = "2" }, Changes{
			Containers: []ContainerChange{{Kind: KindMain, Index: 0, Name: "db", Fields: []string{"resources"}, Resources: []v1alpha1.ResourceName{"cpu"}, Effect: EffectResize}},
		}},
		{"a memory change with resizePolicy RestartContainer restarts the container", func(p *v1alpha1.Pod) { p.Spec.Containers[0].Resources.Requests["memory"] = "300Mi" }, Changes{
			Containers: []ContainerChange{{Kind: KindMain, Index: 0, Name: "db", Fields: []string{"resources"}, Resources: []v1alpha1.ResourceName{"memory"}, Effect: EffectRestart}},
		}},
		{"the same quantity written differently is no change", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Resources.Limits["cpu"] = "1000m"
			p.Spec.Containers[0].Resources.Limits["memory"] = "0.5Gi"
		}, Changes{}},
		{"an init container's image change applies only to a run that has not completed", func(p *v1alpha1.Pod) { p.Spec.InitContainers[0].Image = "oci:images/tools:2" }, Changes{
			Containers: []ContainerChange{{Kind: KindInit, Index: 0, Name: "fetch", Fields: []string{"image"}, Effect: EffectNextRun}},
		}},
		{"a sidecar's command change restarts the sidecar", func(p *v1alpha1.Pod) { p.Spec.InitContainers[1].Command = []string{"/bin/gossip", "-v"} }, Changes{
			Containers: []ContainerChange{{Kind: KindSidecar, Index: 1, Name: "gossip", Fields: []string{"command"}, Effect: EffectRestart}},
		}},
		{"containers are listed init first, each with its own effect", func(p *v1alpha1.Pod) {
			p.Spec.Containers[2].Resources = &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{"pids": "64"}}
			p.Spec.InitContainers[1].Image = "oci:images/gossip:2.2"
		}, Changes{Containers: []ContainerChange{
			{Kind: KindSidecar, Index: 1, Name: "gossip", Fields: []string{"image"}, Effect: EffectRestart},
			{Kind: KindMain, Index: 2, Name: "migrate", Fields: []string{"resources"}, Resources: []v1alpha1.ResourceName{"pids"}, Effect: EffectResize},
		}}},
		{"immutable changes are ignored", func(p *v1alpha1.Pod) { p.Spec.Containers[0].StopSignal = "SIGTERM" }, Changes{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldPod, newPod := basePod(t), basePod(t)
			oldPod.SetDefaults()
			tc.mutate(newPod)
			newPod.SetDefaults()
			got := MutableChanges(newPod, oldPod)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changes\n got  %+v\n want %+v", got, tc.want)
			}
			if got.Empty() != reflect.DeepEqual(tc.want, Changes{}) {
				t.Errorf("Empty() = %v", got.Empty())
			}
		})
	}
}

func TestRestartsListsRestartedContainers(t *testing.T) {
	c := Changes{Containers: []ContainerChange{
		{Name: "a", Effect: EffectRestart}, {Name: "b", Effect: EffectResize}, {Name: "c", Effect: EffectNextRun}, {Name: "d", Effect: EffectRestart},
	}}
	if got := c.Restarts(); !reflect.DeepEqual(got, []string{"a", "d"}) {
		t.Errorf("Restarts() = %v", got)
	}
}
