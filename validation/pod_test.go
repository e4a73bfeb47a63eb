package validation

import (
	"strconv"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

func TestBaseObjectsAreValid(t *testing.T) {
	p := basePod(t)
	p.SetDefaults()
	checkFindings(t, ValidatePod(p), nil)
	n := baseNotification(t)
	n.SetDefaults()
	checkFindings(t, ValidateNotification(n), nil)
}

func TestValidatePod(t *testing.T) {
	main := func(p *v1alpha1.Pod, name string) *v1alpha1.Container {
		for i := range p.Spec.Containers {
			if p.Spec.Containers[i].Name == name {
				return &p.Spec.Containers[i]
			}
		}
		panic("no container " + name)
	}
	always := v1alpha1.RestartPolicyAlways
	cases := []struct {
		name   string
		mutate func(p *v1alpha1.Pod)
		want   []string
	}{
		// ID-001
		{"a pod name with an upper-case letter is rejected", func(p *v1alpha1.Pod) { p.Metadata.Name = "Shard-7" }, []string{"ID-001 metadata.name"}},
		{"a pod name of 64 characters is rejected", func(p *v1alpha1.Pod) { p.Metadata.Name = strings.Repeat("a", 64) }, []string{"ID-001 metadata.name"}},
		{"a pod name of 63 characters is accepted", func(p *v1alpha1.Pod) { p.Metadata.Name = strings.Repeat("a", 63) }, nil},
		{"a missing pod name is a required-field error", func(p *v1alpha1.Pod) { p.Metadata.Name = "" }, []string{"MAN-003 metadata.name"}},
		// ID-002
		{"a container name shared by an init and a main container is rejected on the later one", func(p *v1alpha1.Pod) { p.Spec.InitContainers[0].Name = "report" }, []string{"ID-002 spec.containers[3].name"}},
		{"a defer container reusing a main container's name is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[1].Name = "db" }, []string{"ID-002 spec.deferContainers[1].name"}},
		{"a container name with an underscore is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].Name = "re_balance" }, []string{"ID-002 spec.deferContainers[0].name"}},
		{"distinct DNS-label container names are accepted", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].Name = "re-balance-2" }, nil},
		// ID-003
		{"a label key with two slashes is rejected at the key", func(p *v1alpha1.Pod) { p.Metadata.Labels["a/b/c"] = "x" }, []string{"ID-003 metadata.labels[a/b/c]"}},
		{"a label value with a space is rejected", func(p *v1alpha1.Pod) { p.Metadata.Labels["app"] = "my db" }, []string{"ID-003 metadata.labels[app]"}},
		{"an annotation key with an upper-case prefix is rejected", func(p *v1alpha1.Pod) { p.Metadata.Annotations["Example.com/x"] = "" }, []string{"ID-003 metadata.annotations[Example.com/x]"}},
		{"an annotation value may be any text", func(p *v1alpha1.Pod) { p.Metadata.Annotations["note"] = "any text: {with} [symbols]" }, nil},
		{"annotations over 256 KiB in total are rejected", func(p *v1alpha1.Pod) { p.Metadata.Annotations["big"] = strings.Repeat("x", 256*1024) }, []string{"ID-003 metadata.annotations"}},
		// MAIN-001
		{"a pod without main containers is rejected", func(p *v1alpha1.Pod) { p.Spec.Containers = nil; p.Spec.ExitPolicy = "" }, []string{"MAIN-001 spec.containers"}},
		// SEC-018, SEC-019, SEC-020
		{"adding a capability of the default set is accepted, dropping any is", func(p *v1alpha1.Pod) {
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{Add: []v1alpha1.Capability{"NET_BIND_SERVICE"}, Drop: []v1alpha1.Capability{"ALL", "SYS_ADMIN"}}}
		}, nil},
		{"adding a capability outside the default set is rejected at its position", func(p *v1alpha1.Pod) {
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{Add: []v1alpha1.Capability{"CHOWN", "NET_ADMIN", "CAP_CHOWN"}}}
		}, []string{"SEC-018 spec.containers[0].securityContext.capabilities.add[1]", "SEC-018 spec.containers[0].securityContext.capabilities.add[2]"}},
		{"a dropped capability written with CAP_ is rejected: it would drop nothing", func(p *v1alpha1.Pod) {
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{Capabilities: &v1alpha1.Capabilities{Drop: []v1alpha1.Capability{"NET_RAW", "CAP_NET_RAW"}}}
		}, []string{"SEC-018 spec.containers[0].securityContext.capabilities.drop[1]"}},
		{"runAsNonRoot with runAsUser 0 is rejected", func(p *v1alpha1.Pod) {
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(0))}
		}, []string{"SEC-019 spec.containers[0].securityContext.runAsUser"}},
		{"runAsNonRoot with runAsUser 1000 is accepted", func(p *v1alpha1.Pod) {
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(1000))}
		}, nil},
		{"allowPrivilegeEscalation true is rejected, false accepted", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[0].SecurityContext = &v1alpha1.SecurityContext{AllowPrivilegeEscalation: ptr(true)}
			main(p, "db").SecurityContext = &v1alpha1.SecurityContext{AllowPrivilegeEscalation: ptr(false)}
		}, []string{"SEC-020 spec.initContainers[0].securityContext.allowPrivilegeEscalation"}},
		// DEP-001
		{"dependsOn naming an unknown container is rejected", func(p *v1alpha1.Pod) { main(p, "api").DependsOn[0].Name = "dbx" }, []string{"DEP-001 spec.containers[1].dependsOn[0].name"}},
		{"dependsOn naming a sidecar is rejected", func(p *v1alpha1.Pod) { main(p, "migrate").DependsOn[0].Name = "gossip" }, []string{"DEP-001 spec.containers[2].dependsOn[0].name"}},
		{"dependsOn naming a defer container is rejected", func(p *v1alpha1.Pod) { main(p, "migrate").DependsOn[0].Name = "upload" }, []string{"DEP-001 spec.containers[2].dependsOn[0].name"}},
		// DEP-002
		{"a container depending on itself is rejected", func(p *v1alpha1.Pod) { main(p, "api").DependsOn[0].Name = "api" }, []string{"DEP-002 spec.containers[1].dependsOn[0].name"}},
		// DEP-003
		{"a two-container cycle is reported once, on the entry that closes it", func(p *v1alpha1.Pod) {
			main(p, "db").DependsOn = []v1alpha1.Dependency{{Name: "api", Condition: v1alpha1.ConditionStarted}}
		}, []string{"DEP-003 spec.containers[1].dependsOn[0].name"}},
		{"each of two cycles through one entry is reported once", func(p *v1alpha1.Pod) {
			main(p, "db").DependsOn = []v1alpha1.Dependency{{Name: "report"}}
		}, []string{"DEP-003 spec.containers[1].dependsOn[0].name", "DEP-003 spec.containers[2].dependsOn[0].name"}},
		{"a diamond of dependencies is not a cycle", func(p *v1alpha1.Pod) {
			main(p, "migrate").DependsOn = append(main(p, "migrate").DependsOn, v1alpha1.Dependency{Name: "api"})
		}, nil},
		// DEP-004
		{"condition Ready on a container without readinessProbe is rejected", func(p *v1alpha1.Pod) { main(p, "db").ReadinessProbe = nil }, []string{"DEP-004 spec.containers[1].dependsOn[0].condition"}},
		// DEP-005
		{"condition Completed on a container that restarts Always is rejected", func(p *v1alpha1.Pod) { main(p, "migrate").RestartPolicy = &always }, []string{"DEP-005 spec.containers[3].dependsOn[0].condition"}},
		{"condition Completed on a container inheriting restartPolicy Always is rejected", func(p *v1alpha1.Pod) {
			p.Spec.RestartPolicy = v1alpha1.RestartPolicyAlways
			p.Spec.ExitPolicy = v1alpha1.ExitPolicyAll
		}, []string{"DEP-005 spec.containers[3].dependsOn[0].condition"}},
		{"condition Completed on a container with restartPolicy Never is accepted", func(p *v1alpha1.Pod) { main(p, "migrate").RestartPolicy = ptr(v1alpha1.RestartPolicyNever) }, nil},
		// DEP-006
		{"dependsOn on an init container is rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[0].DependsOn = []v1alpha1.Dependency{{Name: "db"}}
		}, []string{"DEP-006 spec.initContainers[0].dependsOn"}},
		{"dependsOn on a sidecar is rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[1].DependsOn = []v1alpha1.Dependency{{Name: "db"}}
		}, []string{"DEP-006 spec.initContainers[1].dependsOn"}},
		{"naming the same dependency twice is rejected", func(p *v1alpha1.Pod) {
			main(p, "api").DependsOn = append(main(p, "api").DependsOn, v1alpha1.Dependency{Name: "db", Condition: v1alpha1.ConditionStarted})
		}, []string{"DEP-006 spec.containers[1].dependsOn[1].name"}},
		// EXIT-001
		{"exit policy AnyFailure with every main container restarting Always is warned about", func(p *v1alpha1.Pod) {
			p.Spec.RestartPolicy = v1alpha1.RestartPolicyAlways
			main(p, "migrate").RestartPolicy = &always
			main(p, "report").DependsOn = main(p, "report").DependsOn[1:]
		}, []string{"EXIT-001 spec.exitPolicy (warning)"}},
		{"exit policy All with restartPolicy Always is an ordinary service and not warned about", func(p *v1alpha1.Pod) {
			p.Spec.RestartPolicy = v1alpha1.RestartPolicyAlways
			p.Spec.ExitPolicy = v1alpha1.ExitPolicyAll
			main(p, "report").DependsOn = main(p, "report").DependsOn[1:]
		}, nil},
		{"exit policy Any with one main container that can end is accepted", func(p *v1alpha1.Pod) {
			p.Spec.RestartPolicy = v1alpha1.RestartPolicyAlways
			p.Spec.ExitPolicy = v1alpha1.ExitPolicyAny
			main(p, "migrate").RestartPolicy = ptr(v1alpha1.RestartPolicyNever)
		}, nil},
		// RST-001
		{"a zero initial back-off is rejected", func(p *v1alpha1.Pod) { p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: ptr(0.0)} }, []string{"RST-001 spec.restartBackoff.initialSeconds"}},
		{"a back-off factor below 1 is rejected", func(p *v1alpha1.Pod) { p.Spec.RestartBackoff = &v1alpha1.Backoff{Factor: ptr(0.5)} }, []string{"RST-001 spec.restartBackoff.factor"}},
		{"a back-off cap below the initial delay is rejected", func(p *v1alpha1.Pod) {
			p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: ptr(20.0), MaxSeconds: ptr(5.0)}
		}, []string{"RST-001 spec.restartBackoff.maxSeconds"}},
		{"a negative reset interval is rejected", func(p *v1alpha1.Pod) { p.Spec.RestartBackoff = &v1alpha1.Backoff{ResetAfterSeconds: ptr(-1.0)} }, []string{"RST-001 spec.restartBackoff.resetAfterSeconds"}},
		{"a millisecond back-off for tests is accepted", func(p *v1alpha1.Pod) {
			p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: ptr(0.01), Factor: ptr(1.0), MaxSeconds: ptr(0.05), ResetAfterSeconds: ptr(0.5)}
		}, nil},
		// STOP-001
		{"stopSignal SIGKILL is rejected", func(p *v1alpha1.Pod) { main(p, "db").StopSignal = "SIGKILL" }, []string{"STOP-001 spec.containers[0].stopSignal"}},
		{"stopSignal SIGSTOP on a sidecar is rejected", func(p *v1alpha1.Pod) { p.Spec.InitContainers[1].StopSignal = "SIGSTOP" }, []string{"STOP-001 spec.initContainers[1].stopSignal"}},
		{"an unknown stopSignal is rejected", func(p *v1alpha1.Pod) { main(p, "api").StopSignal = "TERM" }, []string{"STOP-001 spec.containers[1].stopSignal"}},
		{"a real-time stopSignal is accepted", func(p *v1alpha1.Pod) { main(p, "api").StopSignal = "SIGRTMIN+3" }, nil},
		// STOP-002
		{"defer timeouts that cannot fit the grace period are warned about", func(p *v1alpha1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr[int64](20) }, []string{"STOP-002 spec.deferContainers[1].timeoutSeconds (warning)"}},
		{"defer timeouts that exactly fit the grace period are accepted", func(p *v1alpha1.Pod) { p.Spec.TerminationGracePeriodSeconds = ptr[int64](27) }, nil},
		// HOOK-001
		{"a readinessProbe on a regular init container is rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[0].ReadinessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"true"}}}
		}, []string{"HOOK-001 spec.initContainers[0].readinessProbe"}},
		{"lifecycle hooks on a regular init container are rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[0].Lifecycle = &v1alpha1.Lifecycle{PostStart: &v1alpha1.LifecycleHandler{Sleep: &v1alpha1.SleepAction{Seconds: 1}}}
		}, []string{"HOOK-001 spec.initContainers[0].lifecycle"}},
		{"a livenessProbe on a sidecar is accepted", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[1].LivenessProbe = &v1alpha1.Probe{Exec: &v1alpha1.ExecAction{Command: []string{"true"}}}
		}, nil},
		// HOOK-002
		{"a probe without a handler is rejected", func(p *v1alpha1.Pod) { main(p, "db").LivenessProbe.Exec = nil }, []string{"HOOK-002 spec.containers[0].livenessProbe"}},
		{"a probe with an empty command is rejected", func(p *v1alpha1.Pod) { main(p, "db").LivenessProbe.Exec.Command = nil }, []string{"HOOK-002 spec.containers[0].livenessProbe.exec.command"}},
		{"a hook with both exec and sleep is rejected", func(p *v1alpha1.Pod) {
			main(p, "db").Lifecycle.PreStop.Sleep = &v1alpha1.SleepAction{Seconds: 1}
		}, []string{"HOOK-002 spec.containers[0].lifecycle.preStop.sleep"}},
		{"a hook without a handler is rejected", func(p *v1alpha1.Pod) { main(p, "db").Lifecycle.PostStart.Exec = nil }, []string{"HOOK-002 spec.containers[0].lifecycle.postStart"}},
		{"a preStop sleep longer than the grace period is rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[1].Lifecycle.PreStop.Sleep.Seconds = 31
		}, []string{"HOOK-002 spec.initContainers[1].lifecycle.preStop.sleep.seconds"}},
		{"a preStop sleep as long as the grace period is accepted", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[1].Lifecycle.PreStop.Sleep.Seconds = 30
		}, nil},
		// NTF-001
		{"a notifier name with a space is rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[0].Name = "qui esce" }, []string{"NTF-001 spec.containers[0].notifiers[0].name"}},
		{"two notifiers of one container with the same name are rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[1].Name = "quiesce" }, []string{"NTF-001 spec.containers[0].notifiers[1].name"}},
		{"the same notifier name on two containers is accepted", func(p *v1alpha1.Pod) { p.Spec.InitContainers[1].Notifiers[0].Name = "quiesce" }, nil},
		// NTF-002
		{"a notifier with both exec and signal is rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[0].Action.Signal = "SIGUSR1" }, []string{"NTF-002 spec.containers[0].notifiers[0].action.signal"}},
		{"a notifier without an action is rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[1].Action.Signal = "" }, []string{"NTF-002 spec.containers[0].notifiers[1].action"}},
		{"a notifier signal SIGKILL is rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[1].Action.Signal = "SIGKILL" }, []string{"NTF-002 spec.containers[0].notifiers[1].action.signal"}},
		{"a notifier with an empty exec command is rejected", func(p *v1alpha1.Pod) { main(p, "db").Notifiers[0].Action.Exec.Command = []string{} }, []string{"NTF-002 spec.containers[0].notifiers[0].action.exec.command"}},
		// NTF-003
		{"notifiers on a regular init container are rejected", func(p *v1alpha1.Pod) {
			p.Spec.InitContainers[0].Notifiers = []v1alpha1.Notifier{{Name: "x", Action: v1alpha1.NotifierAction{Signal: "SIGHUP"}}}
		}, []string{"NTF-003 spec.initContainers[0].notifiers"}},
		// VOL-001
		{"a mount naming an undeclared volume is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[1].VolumeMounts[1].Name = "cache2" }, []string{"VOL-001 spec.deferContainers[1].volumeMounts[1].name"}},
		// VOL-002
		{"two volumes with one name are rejected", func(p *v1alpha1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, v1alpha1.Volume{Name: "data", EmptyDir: &v1alpha1.EmptyDirVolumeSource{}})
		}, []string{"VOL-002 spec.volumes[3].name"}},
		{"a volume without a source is rejected", func(p *v1alpha1.Pod) { p.Spec.Volumes[0].EmptyDir = nil }, []string{"VOL-002 spec.volumes[0]"}},
		{"a volume with two sources is rejected", func(p *v1alpha1.Pod) { p.Spec.Volumes[1].EmptyDir = &v1alpha1.EmptyDirVolumeSource{} }, []string{"VOL-002 spec.volumes[1].hostPath"}},
		{"a relative mountPath is rejected", func(p *v1alpha1.Pod) { main(p, "db").VolumeMounts[1].MountPath = "certs" }, []string{"VOL-002 spec.containers[0].volumeMounts[1].mountPath"}},
		{"two mounts at one path in a container are rejected", func(p *v1alpha1.Pod) { main(p, "db").VolumeMounts[1].MountPath = "/data/" }, []string{"VOL-002 spec.containers[0].volumeMounts[1].mountPath"}},
		{"one volume mounted at two paths is accepted", func(p *v1alpha1.Pod) { main(p, "db").VolumeMounts[1].Name = "data" }, nil},
		// VOL-003
		{"a relative hostPath is rejected", func(p *v1alpha1.Pod) { p.Spec.Volumes[1].HostPath.Path = "etc/certs" }, []string{"VOL-003 spec.volumes[1].hostPath.path"}},
		{"an unclean hostPath is rejected", func(p *v1alpha1.Pod) { p.Spec.Volumes[1].HostPath.Path = "/etc/../certs/" }, []string{"VOL-003 spec.volumes[1].hostPath.path"}},
		{"a shared volume name that is no DNS label is rejected", func(p *v1alpha1.Pod) { p.Spec.Volumes[2].Shared.Name = "Build_Cache" }, []string{"VOL-003 spec.volumes[2].shared.name"}},
		// RES-001
		{"an unknown resource name is rejected at its key", func(p *v1alpha1.Pod) { main(p, "db").Resources.Limits["gpu"] = "1" }, []string{"RES-001 spec.containers[0].resources.limits[gpu]"}},
		{"an unparseable quantity is rejected", func(p *v1alpha1.Pod) { main(p, "db").Resources.Limits["memory"] = "512MB" }, []string{"RES-001 spec.containers[0].resources.limits[memory]"}},
		{"a fractional pid limit is rejected", func(p *v1alpha1.Pod) { main(p, "db").Resources.Limits["pids"] = "2.5" }, []string{"RES-001 spec.containers[0].resources.limits[pids]"}},
		{"a request above its limit is rejected at the request", func(p *v1alpha1.Pod) { main(p, "db").Resources.Requests["cpu"] = "1500m" }, []string{"RES-001 spec.containers[0].resources.requests[cpu]"}},
		{"a request equal to its limit in other units is accepted", func(p *v1alpha1.Pod) { main(p, "db").Resources.Requests["cpu"] = "1000m" }, nil},
		{"a resize policy for an unknown resource is rejected", func(p *v1alpha1.Pod) { main(p, "db").ResizePolicy[0].ResourceName = "disk" }, []string{"RES-001 spec.containers[0].resizePolicy[0].resourceName"}},
		{"an emptyDir sizeLimit that is no quantity is rejected", func(p *v1alpha1.Pod) { *p.Spec.Volumes[0].EmptyDir.SizeLimit = "lots" }, []string{"RES-001 spec.volumes[0].emptyDir.sizeLimit"}},
		// DEFER-001
		{"a defer with restartPolicy Always is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].RestartPolicy = v1alpha1.RestartPolicyAlways }, []string{"DEFER-001 spec.deferContainers[0].restartPolicy"}},
		{"a defer with timeoutSeconds 0 is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].TimeoutSeconds = ptr[int64](0) }, []string{"DEFER-001 spec.deferContainers[0].timeoutSeconds"}},
		{"a defer without a timeout is accepted", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].TimeoutSeconds = nil }, nil},
		// IMG-001
		{"a registry image reference is accepted", func(p *v1alpha1.Pod) { main(p, "api").Image = "docker.io/library/busybox:1.36" }, nil},
		{"an upper-case registry repository is rejected", func(p *v1alpha1.Pod) { main(p, "api").Image = "docker.io/library/BusyBox:1.36" }, []string{"IMG-001 spec.containers[1].image"}},
		{"a docker:// transport is rejected", func(p *v1alpha1.Pod) { p.Spec.DeferContainers[0].Image = "docker://busybox" }, []string{"IMG-001 spec.deferContainers[0].image"}},
		{"an oci reference with a bad digest is rejected", func(p *v1alpha1.Pod) { main(p, "api").Image = "oci:images/api@sha256:abc" }, []string{"IMG-001 spec.containers[1].image"}},
		{"an oci reference without a path is rejected", func(p *v1alpha1.Pod) { p.Spec.InitContainers[0].Image = "oci::1.0" }, []string{"IMG-001 spec.initContainers[0].image"}},
		{"a missing image is a required-field error", func(p *v1alpha1.Pod) { p.Spec.InitContainers[0].Image = "" }, []string{"MAN-003 spec.initContainers[0].image"}},
		// MAN-002 enumerations the runtime relies on
		{"an unknown restart policy is rejected", func(p *v1alpha1.Pod) { p.Spec.RestartPolicy = "Sometimes" }, []string{"MAN-002 spec.restartPolicy"}},
		{"an unknown dependency condition is rejected", func(p *v1alpha1.Pod) { main(p, "api").DependsOn[0].Condition = "Healthy" }, []string{"MAN-002 spec.containers[1].dependsOn[0].condition"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := basePod(t)
			tc.mutate(p)
			p.SetDefaults()
			checkFindings(t, ValidatePod(p), tc.want)
		})
	}
}

func TestCycleMessages(t *testing.T) {
	cases := []struct {
		name string
		deps map[string][]string // container (in this order: a, b, c, d) → dependencies
		want []string            // messages
	}{
		{"a two-member cycle starts at the member listed first", map[string][]string{"a": {"b"}, "b": {"a"}}, []string{"cycle: a → b → a"}},
		{"a cycle entered from outside still starts at its first-listed member", map[string][]string{"a": {"c"}, "b": {"c"}, "c": {"d"}, "d": {"b"}}, []string{"cycle: b → c → d → b"}},
		{"two cycles sharing a member are both reported", map[string][]string{"a": {"b"}, "b": {"a", "c"}, "c": {"a"}}, []string{"cycle: a → b → a", "cycle: a → b → c → a"}},
		{"an acyclic graph has no cycle", map[string][]string{"a": {"b", "c"}, "b": {"c"}, "c": {"d"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p v1alpha1.Pod
			p.Metadata.Name = "p"
			for _, n := range []string{"a", "b", "c", "d"} {
				c := v1alpha1.Container{Name: n, Image: "oci:img"}
				for _, d := range tc.deps[n] {
					c.DependsOn = append(c.DependsOn, v1alpha1.Dependency{Name: d})
				}
				p.Spec.Containers = append(p.Spec.Containers, c)
			}
			p.SetDefaults()
			var got []string
			for _, e := range ValidatePod(&p) {
				if e.Rule != spec.DEP003 {
					t.Errorf("unexpected %s %s", e.Rule, e.Error())
					continue
				}
				got = append(got, e.Detail)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("cycles:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}

func TestLongDependencyChainIsLinear(t *testing.T) {
	var p v1alpha1.Pod
	p.Metadata.Name = "chain"
	const n = 20000
	for i := range n {
		c := v1alpha1.Container{Name: "c" + strconv.Itoa(i), Image: "oci:img"}
		if i+1 < n {
			c.DependsOn = []v1alpha1.Dependency{{Name: "c" + strconv.Itoa(i+1)}}
		}
		p.Spec.Containers = append(p.Spec.Containers, c)
	}
	p.Spec.Containers[n-1].DependsOn = []v1alpha1.Dependency{{Name: "c0"}}
	p.SetDefaults()
	errs := ValidatePod(&p)
	if len(errs) != 1 || errs[0].Rule != spec.DEP003 || errs[0].Field.String() != "spec.containers[19999].dependsOn[0].name" {
		t.Fatalf("want one cycle closed by the last container, got %d findings (first %v)", len(errs), errs[0])
	}
}
