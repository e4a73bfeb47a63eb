package framework

import (
	"slices"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

func TestBuildWiresTheProbeIntoEveryContainer(t *testing.T) {
	b := NewPod().
		Init("init-1", Exit(0)).
		Sidecar("side", Loop(), Readiness(CheckMarker("ready"), ProbeTiming{PeriodSeconds: 1})).
		Main("app", ExitAfter(3, time.Second).Codes("1", "0"), PreStop(HookHandler(time.Second, 0)), DependsOn("db", v1alpha1.ConditionReady)).
		Main("db", Loop()).
		Defer("cleanup", Exit(0), DeferPhase(v1alpha1.DeferBeforeStop)).
		ExitPolicy(v1alpha1.ExitPolicyAny).Grace(5)
	p := b.Build(BuildEnv{Name: "c123456-x", Image: "oci:/img:probe", ProbeDir: "/tmp/p/x", RunID: "c123456"})

	if p.Metadata.Name != "c123456-x" || p.APIVersion != v1alpha1.APIVersion || p.Kind != v1alpha1.KindPod {
		t.Fatalf("metadata %+v %s %s", p.Metadata, p.APIVersion, p.Kind)
	}
	if len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0].HostPath == nil || p.Spec.Volumes[0].HostPath.Path != "/tmp/p/x" {
		t.Fatalf("volumes %+v", p.Spec.Volumes)
	}
	all := append(append([]v1alpha1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...)
	for _, c := range all {
		if c.Image != "oci:/img:probe" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != ProbeMount {
			t.Errorf("container %s not wired: %+v", c.Name, c)
		}
		if c.Command[0] != ProbePath || c.Command[2] != "-name" || c.Command[3] != c.Name {
			t.Errorf("container %s command %q", c.Name, c.Command)
		}
	}
	if !p.Spec.InitContainers[1].IsSidecar() || p.Spec.InitContainers[0].IsSidecar() {
		t.Error("sidecar flag wrong")
	}
	app := p.Spec.Containers[0]
	if !slices.Contains(app.Command, "-counter") || !slices.Contains(app.Command, ProbeMount+"/app.instances") {
		t.Errorf("Codes did not add a counter: %q", app.Command)
	}
	if app.Lifecycle == nil || app.Lifecycle.PreStop == nil || app.Lifecycle.PreStop.Exec.Command[1] != "hook" {
		t.Errorf("preStop %+v", app.Lifecycle)
	}
	if got := p.Spec.InitContainers[1].ReadinessProbe.Exec.Command; !slices.Contains(got, ProbeMount+"/ready") {
		t.Errorf("readiness command %q", got)
	}
	if len(p.Spec.DeferContainers) != 1 || p.Spec.DeferContainers[0].Phase != v1alpha1.DeferBeforeStop {
		t.Errorf("defers %+v", p.Spec.DeferContainers)
	}
	if p.Spec.ExitPolicy != v1alpha1.ExitPolicyAny || *p.Spec.TerminationGracePeriodSeconds != 5 {
		t.Errorf("spec %+v", p.Spec)
	}
}

func TestPodNameIsADNSLabelWithTheRunID(t *testing.T) {
	f := &Framework{cfg: Config{RunID: "c0a1b2c"}}
	if got := f.PodName("init-order"); got != "c0a1b2c-init-order" {
		t.Fatalf("PodName = %q", got)
	}
	long := f.PodName("a-very-long-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-")
	if len(long) > 63 || long[len(long)-1] == '-' {
		t.Fatalf("PodName = %q (%d)", long, len(long))
	}
}

func TestTolerancesScaleWaitsButNotMargins(t *testing.T) {
	d := DefaultTolerances()
	s := d.Scaled(2)
	if s.PodTimeout.Value != 2*d.PodTimeout.Value || s.Reaction.Value != 2*SpecReactionTolerance || s.ExecJitter.Value != 2*d.ExecJitter.Value || s.EarlyMargin.Value != d.EarlyMargin.Value || s.SlowFactor != 2 {
		t.Fatalf("scaled %+v", s)
	}
	if d.Scaled(0.5).SlowFactor != 1 {
		t.Fatal("a factor below 1 must not shrink waits")
	}
}
