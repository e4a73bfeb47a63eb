package v1alpha1

import "testing"

func TestIMG022_TheDefaultPullPolicyIsKubernetes(t *testing.T) {
	const hex = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for image, want := range map[string]PullPolicy{
		"nginx": PullAlways, "nginx:latest": PullAlways, "127.0.0.1:5000/app": PullAlways,
		"nginx:1.27": PullIfNotPresent, "nginx@sha256:" + hex: PullIfNotPresent, "nginx:latest@sha256:" + hex: PullIfNotPresent,
		"oci:images/app:latest": "", "Not A Reference": "",
	} {
		if got := DefaultPullPolicy(image); got != want {
			t.Errorf("DefaultPullPolicy(%q) = %q, want %q", image, got, want)
		}
	}
	p := &Pod{Spec: PodSpec{Containers: []Container{{Name: "a", Image: "nginx"}, {Name: "b", Image: "nginx:1", ImagePullPolicy: PullNever}},
		DeferContainers: []DeferContainer{{Name: "d", Image: "busybox:1.36"}}}}
	p.SetDefaults()
	if p.Spec.Containers[0].ImagePullPolicy != PullAlways || p.Spec.Containers[1].ImagePullPolicy != PullNever || p.Spec.DeferContainers[0].ImagePullPolicy != PullIfNotPresent {
		t.Errorf("SetDefaults: %q %q %q", p.Spec.Containers[0].ImagePullPolicy, p.Spec.Containers[1].ImagePullPolicy, p.Spec.DeferContainers[0].ImagePullPolicy)
	}
}
