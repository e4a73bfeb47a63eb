package validation

import (
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

func TestValidatePodUpdate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p *v1alpha1.Pod)
		want   []string
	}{
		{"an unchanged pod is a legal update", func(p *v1alpha1.Pod) {}, nil},
		{"labels, annotations and generation may change", func(p *v1alpha1.Pod) {
			p.Metadata.Labels = map[string]string{"app": "db2"}
			p.Metadata.Annotations = nil
			p.Metadata.Generation = 7
		}, nil},
		{"image, command, args, env and resources of main and init containers may change", func(p *v1alpha1.Pod) {
			c := &p.Spec.Containers[0]
			c.Image = "oci:images/db:6"
			c.Command = []string{"/bin/db2"}
			c.Args = nil
			c.Env = append(c.Env, v1alpha1.EnvVar{Name: "X", Value: "1"})
			c.Resources.Limits["memory"] = "1Gi"
			delete(c.Resources.Requests, "cpu")
			p.Spec.InitContainers[0].Image = "oci:images/tools:2.0"
			p.Spec.InitContainers[1].Resources = &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{"cpu": "100m"}}
		}, nil},
		{"the grace period may change in either direction", func(p *v1alpha1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr[int64](90) }, nil},
		{"activeDeadlineSeconds may decrease", func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr[int64](60) }, nil},
		{"activeDeadlineSeconds may not increase", func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr[int64](3601) }, []string{"UPD-002 spec.activeDeadlineSeconds"}},
		{"activeDeadlineSeconds may not be removed", func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = nil }, []string{"UPD-002 spec.activeDeadlineSeconds"}},
		{"the pod name is immutable", func(p *v1alpha1.Pod) { p.Metadata.Name = "shard-8" }, []string{"UPD-001 metadata.name"}},
		{"a main container's stop signal is immutable, reported at the leaf", func(p *v1alpha1.Pod) { p.Spec.Containers[1].StopSignal = "SIGINT" }, []string{"UPD-001 spec.containers[1].stopSignal"}},
		{"a resize policy is immutable", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].ResizePolicy[0].RestartPolicy = v1alpha1.NotRequired
		}, []string{"UPD-001 spec.containers[0].resizePolicy[0].restartPolicy"}},
		{"adding a probe is reported at the probe", func(p *v1alpha1.Pod) {
			p.Spec.Containers[1].ReadinessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"true"}}}
		}, []string{"UPD-001 spec.containers[1].readinessProbe"}},
		{"an added volume mount is reported at its index", func(p *v1alpha1.Pod) {
			c := &p.Spec.Containers[0]
			c.VolumeMounts = append(c.VolumeMounts, v1alpha1.VolumeMount{Name: "cache", MountPath: "/cache"})
		}, []string{"UPD-001 spec.containers[0].volumeMounts[2]"}},
		{"a removed volume is reported at the list", func(p *v1alpha1.Pod) { p.Spec.Volumes = p.Spec.Volumes[:2] }, []string{"UPD-001 spec.volumes"}},
		{"several immutable changes are reported one by one", func(p *v1alpha1.Pod) {
			p.Spec.ExitPolicy = v1alpha1.ExitPolicyAll
			p.Spec.RestartBackoff = &v1alpha1.Backoff{Factor: ptr(3.0)}
			p.Spec.Volumes[1].HostPath.Path = "/etc/other"
			p.Spec.Containers[0].Notifiers[0].Action.Exec.Command[1] = "thaw"
		}, []string{
			"UPD-001 spec.exitPolicy", "UPD-001 spec.restartBackoff.factor", "UPD-001 spec.volumes[1].hostPath.path",
			"UPD-001 spec.containers[0].notifiers[0].action.exec.command[1]",
		}},
		{"a defer container's image is immutable", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].Image = "oci:images/tools:2.0" }, []string{"UPD-001 spec.deferContainers[0].image"}},
		{"adding a main container changes the set of containers", func(p *v1alpha1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, v1alpha1.Container{Name: "extra", Image: "oci:x"})
		}, []string{"UPD-001 spec.containers"}},
		{"reordering main containers changes the set of containers", func(p *v1alpha1.Pod) {
			cs := p.Spec.Containers
			cs[0], cs[1] = cs[1], cs[0]
		}, []string{"UPD-001 spec.containers[0].name", "UPD-001 spec.containers[1].name"}},
		{"turning a sidecar into an init container changes its kind", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[1].RestartPolicy = ptr(v1alpha1.RestartPolicyOnFailure)
		}, []string{"UPD-001 spec.initContainers[1].restartPolicy"}},
		{"removing all defer containers changes the set of containers", func(p *v1alpha1.Pod) { p.Spec.DeferContainers = nil }, []string{"UPD-001 spec.deferContainers"}},
		{"a new resource limit is a mutable change", func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Resources.Limits["pids"] = "512"
		}, nil},
		{"an emptyDir size limit is immutable", func(p *v1alpha1.Pod) {
			*p.Spec.Volumes[0].EmptyDir.SizeLimit = "128Mi"
		}, []string{"UPD-001 spec.volumes[0].emptyDir.sizeLimit"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldPod, newPod := basePod(t), basePod(t)
			oldPod.SetDefaults()
			tc.mutate(newPod)
			newPod.SetDefaults()
			checkFindings(t, ValidatePodUpdate(newPod, oldPod), tc.want)
		})
	}
}

func TestImmutableMessagesNameBothValues(t *testing.T) {
	oldPod, newPod := basePod(t), basePod(t)
	newPod.Spec.Containers[1].StopSignal = "SIGINT"
	oldPod.SetDefaults()
	newPod.SetDefaults()
	errs := ValidatePodUpdate(newPod, oldPod)
	if len(errs) != 1 {
		t.Fatalf("want one finding, got %v", errs)
	}
	const want = `spec.containers[1].stopSignal: forbidden: field is immutable (was "SIGTERM", now "SIGINT"); a new pod is needed`
	if got := errs[0].Error(); got != want {
		t.Errorf("message\n got  %s\n want %s", got, want)
	}
}
