package backend

import (
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/oci"
)

// TestRES003_DefaultPidsLimitWhenTheContainerSetsNone: every instance's OCI limits carry a pids
// limit, the container's own or the default, at creation and on an in-place update alike (both
// go through resources).
func TestRES003_DefaultPidsLimitWhenTheContainerSetsNone(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *v1alpha1.ResourceRequirements
		want int64
	}{
		{"a container without resources gets the default", nil, DefaultPidsLimit},
		{"a container with only a memory limit gets the default",
			&v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{v1alpha1.ResourceMemory: "64Mi"}}, DefaultPidsLimit},
		{"a container's own pids limit wins, lower",
			&v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{v1alpha1.ResourcePIDs: "64"}}, 64},
		{"a container's own pids limit wins, higher",
			&v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{v1alpha1.ResourcePIDs: "16384"}}, 16384},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out oci.Resources
			if err := resources(c.r, &out); err != nil {
				t.Fatal(err)
			}
			if out.PidsLimit != c.want {
				t.Errorf("pids limit %d, want %d", out.PidsLimit, c.want)
			}
		})
	}
	if DefaultPidsLimit != 2048 {
		t.Errorf("DefaultPidsLimit = %d; docs/runtime.md and docs/spec/manifest.md say 2048", DefaultPidsLimit)
	}
}
