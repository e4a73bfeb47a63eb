package podman

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

// TestUnsupportedRefusesWhatPodmanCannotDo: every feature podman cannot give podspec's meaning
// is named, so that the pod is refused instead of run with it ignored; a plain pod passes.
func TestUnsupportedRefusesWhatPodmanCannotDo(t *testing.T) {
	always := v1alpha1.RestartPolicyAlways
	deadline := int64(5)
	plain := v1alpha1.PodSpec{RestartPolicy: v1alpha1.RestartPolicyOnFailure, ExitPolicy: v1alpha1.ExitPolicyAll,
		InitContainers: []v1alpha1.Container{{Name: "i", Image: "oci:x"}},
		Containers:     []v1alpha1.Container{{Name: "a", Image: "oci:x"}}}
	if u := Unsupported(&plain); len(u) != 0 {
		t.Errorf("a pod of init and main containers with exit policy All: %v, want nothing refused", u)
	}
	for _, c := range []struct {
		want string
		edit func(*v1alpha1.PodSpec)
	}{
		{"exitPolicy Any", func(s *v1alpha1.PodSpec) { s.ExitPolicy = v1alpha1.ExitPolicyAny }},
		{"activeDeadlineSeconds", func(s *v1alpha1.PodSpec) { s.ActiveDeadlineSeconds = &deadline }},
		{"sidecar", func(s *v1alpha1.PodSpec) { s.InitContainers[0].RestartPolicy = &always }},
		{"dependsOn", func(s *v1alpha1.PodSpec) { s.Containers[0].DependsOn = []v1alpha1.Dependency{{Name: "i"}} }},
		{"probes", func(s *v1alpha1.PodSpec) { s.Containers[0].ReadinessProbe = &v1alpha1.Probe{} }},
		{"lifecycle hooks", func(s *v1alpha1.PodSpec) { s.Containers[0].Lifecycle = &v1alpha1.Lifecycle{} }},
		{"deferContainers", func(s *v1alpha1.PodSpec) { s.DeferContainers = []v1alpha1.DeferContainer{{}} }},
	} {
		s := plain
		s.InitContainers = append([]v1alpha1.Container{}, plain.InitContainers...)
		s.Containers = append([]v1alpha1.Container{}, plain.Containers...)
		c.edit(&s)
		if u := strings.Join(Unsupported(&s), "; "); !strings.Contains(u, c.want) {
			t.Errorf("%s: refused %q, want it named", c.want, u)
		}
	}
}

// TestInstanceIDChangesOnRestart: podman keeps one container ID across restarts; each instance
// gets an ID of its own.
func TestInstanceIDChangesOnRestart(t *testing.T) {
	id := "0123456789abcdef0123"
	if a, b := instanceID(id, 0), instanceID(id, 1); a == b || !strings.HasPrefix(a, id[:12]) {
		t.Errorf("instance IDs %q and %q", a, b)
	}
}

// TestStartOutcomeReadsPodStartsErrors: a container `podman pod start` names is a StartError
// with podman's message; a failed pod start that names no container fails every container it
// left unstarted, unless an init container failed (then no main container may start); nothing
// is an error before pod start returned.
func TestStartOutcomeReadsPodStartsErrors(t *testing.T) {
	a := &Adapter{Root: t.TempDir()}
	rec := &podRecord{UID: "u"}
	dir := a.startDir(rec)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("ab", 32)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("err", "Error: starting container "+id+": unable to find user nosuchuser: no matching entries in passwd file\n")
	if o := a.startOutcome(rec); o.done || o.startError(id, false) != "" {
		t.Errorf("before pod start returned: %+v", o)
	}
	write("rc", "125\n")
	o := a.startOutcome(rec)
	if got := o.startError(id, false); got != "unable to find user nosuchuser: no matching entries in passwd file" {
		t.Errorf("named container: %q", got)
	}
	if got := o.startError("other", false); !strings.Contains(got, "nosuchuser") {
		t.Errorf("unnamed container of a failed pod start: %q", got)
	}
	if got := o.startError("other", true); got != "" {
		t.Errorf("after an init container failed: %q, want no StartError", got)
	}
	write("err", "")
	write("rc", "0\n")
	if got := a.startOutcome(rec).startError(id, false); got != "" {
		t.Errorf("pod start succeeded: %q", got)
	}
}

// TestRestartPolicyIsResolvedPerContainer: a container's own restart policy overrides the pod's,
// and a regular init container's Always is OnFailure (INIT-002).
func TestRestartPolicyIsResolvedPerContainer(t *testing.T) {
	never, always := v1alpha1.RestartPolicyNever, v1alpha1.RestartPolicyAlways
	for _, c := range []struct {
		kind string
		pod  v1alpha1.RestartPolicy
		own  *v1alpha1.RestartPolicy
		want string
	}{
		{"main", v1alpha1.RestartPolicyAlways, nil, "always"},
		{"main", v1alpha1.RestartPolicyOnFailure, nil, "on-failure"},
		{"main", v1alpha1.RestartPolicyNever, nil, "no"},
		{"main", v1alpha1.RestartPolicyOnFailure, &never, "no"},
		{"main", v1alpha1.RestartPolicyNever, &always, "always"},
		{"init", v1alpha1.RestartPolicyAlways, nil, "on-failure"},
		{"init", v1alpha1.RestartPolicyOnFailure, nil, "on-failure"},
		{"init", v1alpha1.RestartPolicyNever, nil, "no"},
		{"init", v1alpha1.RestartPolicyOnFailure, &never, "no"},
	} {
		if got := podmanRestart(c.kind, c.pod, c.own); got != c.want {
			t.Errorf("%s container, pod %s, own %v: --restart %s, want %s", c.kind, c.pod, c.own, got, c.want)
		}
	}
}
