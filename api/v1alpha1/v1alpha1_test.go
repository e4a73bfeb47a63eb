package v1alpha1

import (
	"encoding/json"
	"testing"
)

func TestQuantityParsesKubernetesSuffixes(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		milli int64
		bytes int64
	}{
		{"a plain integer is whole units", "2", 2000, 2},
		{"milli is a thousandth", "500m", 500, 1},
		{"binary suffixes are powers of 1024", "512Mi", 512 << 20 * 1000, 512 << 20},
		{"decimal suffixes are powers of 1000", "1k", 1000 * 1000, 1000},
		{"fractions are allowed", "0.5", 500, 1},
		{"an exponent is allowed", "1e3", 1000 * 1000, 1000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Quantity(c.in).MilliCPU()
			if err != nil || m != c.milli {
				t.Fatalf("MilliCPU(%q) = %d, %v; want %d", c.in, m, err, c.milli)
			}
			b, err := Quantity(c.in).Bytes()
			if err != nil || b != c.bytes {
				t.Fatalf("Bytes(%q) = %d, %v; want %d", c.in, b, err, c.bytes)
			}
		})
	}
}

func TestQuantityRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "abc", "-1", "5Qi", "1.2.3", "NaN", "Inf"} {
		if _, err := Quantity(in).Bytes(); err == nil {
			t.Errorf("Bytes(%q) accepted garbage", in)
		}
	}
	if _, err := Quantity("1.5").Count(); err == nil {
		t.Error("Count accepted a fraction")
	}
}

func TestQuantityDecodesFromStringOrNumber(t *testing.T) {
	var rl ResourceList
	if err := json.Unmarshal([]byte(`{"cpu":"250m","pids":256,"memory":1e6}`), &rl); err != nil {
		t.Fatal(err)
	}
	if rl[ResourceCPU] != "250m" || rl[ResourcePIDs] != "256" || rl[ResourceMemory] != "1e+06" && rl[ResourceMemory] != "1e6" {
		t.Fatalf("decoded %v", rl)
	}
	if err := json.Unmarshal([]byte(`{"cpu":true}`), &rl); err == nil {
		t.Fatal("a boolean quantity was accepted")
	}
}

func TestSignalNamesAndNumbersRoundTrip(t *testing.T) {
	for _, name := range append(SignalNames(), "SIGRTMIN", "SIGRTMIN+3", "SIGRTMAX") {
		n, ok := SignalNumber(name)
		if !ok {
			t.Fatalf("SignalNumber(%q) unknown", name)
		}
		if got := SignalName(n); got != name {
			t.Errorf("SignalName(%d) = %q, want %q", n, got, name)
		}
	}
	if n, ok := SignalNumber("SIGRTMAX-2"); !ok || n != 62 {
		t.Errorf("SIGRTMAX-2 = %d, %v; want 62", n, ok)
	}
	for _, bad := range []string{"TERM", "sigterm", "SIGFOO", "SIGRTMIN+40", "SIGRTMAX-0"} {
		if _, ok := SignalNumber(bad); ok {
			t.Errorf("SignalNumber(%q) accepted", bad)
		}
	}
	if !Uncatchable("SIGKILL") || !Uncatchable("SIGSTOP") || Uncatchable("SIGTERM") {
		t.Error("Uncatchable is wrong")
	}
}

func TestDefaultsFollowKubernetes(t *testing.T) {
	always := RestartPolicyAlways
	p := &Pod{Spec: PodSpec{
		InitContainers:  []Container{{Name: "i"}, {Name: "s", RestartPolicy: &always}},
		Containers:      []Container{{Name: "m", ReadinessProbe: &Probe{}, DependsOn: []Dependency{{Name: "x"}}, Notifiers: []Notifier{{Name: "n"}}}},
		DeferContainers: []DeferContainer{{Name: "d"}},
		Volumes:         []Volume{{Name: "v", Shared: &SharedVolumeSource{Name: "c"}}},
	}}
	p.SetDefaults()
	s := p.Spec
	if p.APIVersion != APIVersion || p.Kind != KindPod {
		t.Errorf("type meta %+v", p.TypeMeta)
	}
	if s.RestartPolicy != RestartPolicyAlways || s.ExitPolicy != ExitPolicyAll || *s.TerminationGracePeriodSeconds != 30 {
		t.Errorf("pod defaults: %s %s %d", s.RestartPolicy, s.ExitPolicy, *s.TerminationGracePeriodSeconds)
	}
	b := s.RestartBackoff
	if *b.InitialSeconds != 10 || *b.Factor != 2 || *b.MaxSeconds != 300 || *b.ResetAfterSeconds != 600 {
		t.Errorf("backoff defaults %+v", b)
	}
	m := s.Containers[0]
	if m.StopSignal != "SIGTERM" || m.DependsOn[0].Condition != ConditionStarted || *m.Notifiers[0].TimeoutSeconds != 10 {
		t.Errorf("container defaults %+v", m)
	}
	if r := m.ReadinessProbe; r.PeriodSeconds != 10 || r.TimeoutSeconds != 1 || r.SuccessThreshold != 1 || r.FailureThreshold != 3 {
		t.Errorf("probe defaults %+v", r)
	}
	if d := s.DeferContainers[0]; d.Phase != DeferAfterStop || d.RestartPolicy != RestartPolicyNever || d.OnFailure != DeferContinue {
		t.Errorf("defer defaults %+v", d)
	}
	if s.Volumes[0].Shared.ReclaimPolicy != ReclaimPolicyRetain {
		t.Error("shared volume reclaim policy not defaulted to Retain")
	}
	if got := s.EffectiveRestartPolicy(&s.InitContainers[0], true); got != RestartPolicyOnFailure {
		t.Errorf("init container under an Always pod: %s, want OnFailure", got)
	}
	if got := s.EffectiveRestartPolicy(&s.InitContainers[1], true); got != RestartPolicyAlways || !s.InitContainers[1].IsSidecar() {
		t.Errorf("sidecar: %s", got)
	}
}

func TestSetDefaultsKeepsExplicitValues(t *testing.T) {
	zero := int64(0)
	never := RestartPolicyNever
	p := &Pod{Spec: PodSpec{RestartPolicy: RestartPolicyOnFailure, TerminationGracePeriodSeconds: &zero,
		Containers: []Container{{Name: "m", RestartPolicy: &never, StopSignal: "SIGINT"}}}}
	p.SetDefaults()
	if p.Spec.RestartPolicy != RestartPolicyOnFailure || *p.Spec.TerminationGracePeriodSeconds != 0 || p.Spec.Containers[0].StopSignal != "SIGINT" {
		t.Fatalf("explicit values overwritten: %+v", p.Spec)
	}
	if got := p.Spec.EffectiveRestartPolicy(&p.Spec.Containers[0], false); got != RestartPolicyNever {
		t.Fatalf("container override lost: %s", got)
	}
}

func TestNotificationDefaults(t *testing.T) {
	n := &Notification{}
	n.SetDefaults()
	if n.Kind != KindNotification || n.Spec.TargetPolicy != PreExistingPods || *n.Spec.Parallelism != 0 {
		t.Fatalf("defaults %+v", n)
	}
}

func TestQuantitiesBeyondInt64AreErrorsNeverWrapped(t *testing.T) {
	for _, in := range []string{"8Ei", "9223372036854775808", "1e19", "1e400"} {
		if b, err := Quantity(in).Bytes(); err == nil {
			t.Errorf("Bytes(%q) = %d, want an error", in, b)
		}
		if n, err := Quantity(in).Count(); err == nil {
			t.Errorf("Count(%q) = %d, want an error", in, n)
		}
	}
	if m, err := Quantity("9223372036854776").MilliCPU(); err == nil {
		t.Errorf("MilliCPU of 2^63/1000 cores = %d, want an error", m)
	}
	if b, err := Quantity("7Ei").Bytes(); err != nil || b != 7<<60 {
		t.Errorf("Bytes(7Ei) = %d, %v", b, err)
	}
}
