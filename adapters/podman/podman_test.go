package podman

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/validation"
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
	live := plain
	live.Containers = []v1alpha1.Container{{Name: "a", Image: "oci:x",
		ResizePolicy: []v1alpha1.ContainerResizePolicy{{ResourceName: v1alpha1.ResourceCPU, RestartPolicy: v1alpha1.NotRequired}}}}
	if u := Unsupported(&live); len(u) != 0 {
		t.Errorf("resizePolicy NotRequired (podman update resizes live): %v, want nothing refused", u)
	}
	ported := plain
	ported.Containers = []v1alpha1.Container{{Name: "a", Image: "oci:x", Ports: []v1alpha1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}
	if u := Unsupported(&ported); len(u) != 0 {
		t.Errorf("ports (they only name a port for probes and hooks; nothing is published): %v, want nothing refused", u)
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
		{"probes", func(s *v1alpha1.PodSpec) {
			s.Containers[0].LivenessProbe = &v1alpha1.Probe{HTTPGet: &v1alpha1.HTTPGetAction{Port: v1alpha1.PortNumber(80)}}
		}},
		{"probes", func(s *v1alpha1.PodSpec) {
			s.Containers[0].StartupProbe = &v1alpha1.Probe{GRPC: &v1alpha1.GRPCAction{Port: 9090}}
		}},
		{"lifecycle hooks", func(s *v1alpha1.PodSpec) {
			s.Containers[0].Lifecycle = &v1alpha1.Lifecycle{PostStart: &v1alpha1.LifecycleHandler{HTTPGet: &v1alpha1.HTTPGetAction{Port: v1alpha1.PortNamed("http")}}}
		}},
		{"deferContainers", func(s *v1alpha1.PodSpec) { s.DeferContainers = []v1alpha1.DeferContainer{{}} }},
		{"runAsNonRoot without runAsUser", func(s *v1alpha1.PodSpec) {
			yes := true
			s.Containers[0].SecurityContext = &v1alpha1.SecurityContext{RunAsNonRoot: &yes}
		}},
		{"runAsGroup without runAsUser", func(s *v1alpha1.PodSpec) {
			g := int64(5)
			s.Containers[0].SecurityContext = &v1alpha1.SecurityContext{RunAsGroup: &g}
		}},
		{"hostPort 8080", func(s *v1alpha1.PodSpec) {
			s.Containers[0].Ports = []v1alpha1.ContainerPort{{ContainerPort: 80, HostPort: 8080}}
		}},
		{"resizePolicy RestartContainer", func(s *v1alpha1.PodSpec) {
			s.Containers[0].ResizePolicy = []v1alpha1.ContainerResizePolicy{{ResourceName: v1alpha1.ResourceMemory, RestartPolicy: v1alpha1.RestartContainer}}
		}},
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

// TestInstanceEndReadsEachInstanceFromTheEventLog (STAT-008): the end of each instance of a
// container podman restarted is read from podman's event log (lines as `podman events --format
// json` gives them: a died without ContainerExitCode exited 0), as its ContainerExited, started
// at its ContainerStarted; an instance that has not ended has none.
func TestInstanceEndReadsEachInstanceFromTheEventLog(t *testing.T) {
	id := "7d441ea946215bbfa6bf27e1d91a4847e43a4ff0c4bd63687aebde28807bbc79"
	rec := &podRecord{Name: "p", UID: "u", Containers: []containerRecord{{Name: "app", Kind: "main", ID: id}}}
	at := func(s int) time.Time { return time.Date(2026, 12, 7, 18, 0, s, 0, time.UTC) }
	var log strings.Builder
	for i, line := range []struct{ status, code string }{{"create", ""}, {"start", ""}, {"died", `"ContainerExitCode":3,`},
		{"restart", ""}, {"start", ""}, {"died", ""}, {"restart", ""}, {"start", ""}} {
		fmt.Fprintf(&log, `{%s"ID":%q,"Status":%q,"Time":%q,"Type":"container"}`+"\n", line.code, id, line.status, at(i).Format(time.RFC3339Nano))
	}
	evs := translateLog(rec, []byte(log.String()))
	three, zero := int32(3), int32(0)
	for _, c := range []struct {
		n    int32
		want *v1alpha1.ContainerStateTerminated
	}{
		{0, &v1alpha1.ContainerStateTerminated{ExitCode: &three, Reason: v1alpha1.ReasonError, StartedAt: at(1), FinishedAt: at(2), ContainerID: instanceID(id, 0)}},
		{1, &v1alpha1.ContainerStateTerminated{ExitCode: &zero, Reason: v1alpha1.ReasonCompleted, StartedAt: at(3), FinishedAt: at(5), ContainerID: instanceID(id, 1)}},
		{2, nil},
	} {
		if got := instanceEnd(evs, "app", c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("instance %d: end %+v, want %+v", c.n, got, c.want)
		}
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

// updatePods returns a pod of an init container and two main containers, "live" (restart
// policy Never, cpu and memory limits) and "again" (OnFailure), and a copy to change.
func updatePods() (*v1alpha1.Pod, *v1alpha1.Pod) {
	onFailure := v1alpha1.RestartPolicyOnFailure
	mk := func() *v1alpha1.Pod {
		return &v1alpha1.Pod{TypeMeta: v1alpha1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindPod},
			Metadata: v1alpha1.ObjectMeta{Name: "p"},
			Spec: v1alpha1.PodSpec{RestartPolicy: v1alpha1.RestartPolicyNever, ExitPolicy: v1alpha1.ExitPolicyAll,
				InitContainers: []v1alpha1.Container{{Name: "i", Image: "oci:x"}},
				Containers: []v1alpha1.Container{
					{Name: "live", Image: "oci:x", Resources: &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{
						v1alpha1.ResourceCPU: "500m", v1alpha1.ResourceMemory: "64Mi", v1alpha1.ResourcePIDs: "64"}}},
					{Name: "again", Image: "oci:x", RestartPolicy: &onFailure, Resources: &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{
						v1alpha1.ResourceMemory: "64Mi"}}},
				}}}
	}
	return mk(), mk()
}

// TestPlanUpdateTranslatesLimitsAndRefusesTheRest: a cpu and memory limit change of a running
// container is one `podman update` with the new limits and the old ones to put back; what
// podman cannot do is refused, named, and nothing is called.
func TestPlanUpdateTranslatesLimitsAndRefusesTheRest(t *testing.T) {
	running := map[string]ctrState{"i": ctrDone, "live": ctrRunning, "again": ctrRunning}
	oldPod, newPod := updatePods()
	newPod.Spec.Containers[0].Resources.Limits[v1alpha1.ResourceCPU] = "250m"
	newPod.Spec.Containers[0].Resources.Limits[v1alpha1.ResourceMemory] = "96Mi"
	newPod.Spec.Containers[0].Resources.Requests = v1alpha1.ResourceList{v1alpha1.ResourceCPU: "100m"}
	calls, refused := planUpdate(oldPod, newPod, validation.MutableChanges(newPod, oldPod), running)
	want := []podmanCall{{container: "live", args: []string{"--cpus", "0.250", "--memory", "100663296"}, revert: []string{"--cpus", "0.500", "--memory", "67108864"}}}
	if len(refused) > 0 || !reflect.DeepEqual(calls, want) {
		t.Fatalf("cpu 500m→250m, memory 64Mi→96Mi of a running container: calls %+v, refused %q; want %+v", calls, refused, want)
	}

	seven := int64(7)
	for _, c := range []struct {
		name   string
		states map[string]ctrState
		edit   func(*v1alpha1.Pod)
		want   string // in the refusal
	}{
		{"an image change of a running container is a replacement podman cannot do (UPD-007)", running,
			func(p *v1alpha1.Pod) { p.Spec.Containers[0].Image = "oci:y" }, "main container live: a changed image needs a new instance"},
		{"an env change likewise", running,
			func(p *v1alpha1.Pod) { p.Spec.Containers[0].Env = []v1alpha1.EnvVar{{Name: "A", Value: "1"}} }, "a changed env needs a new instance"},
		{"a pids limit change: podman 4.3's update has no --pids-limit", running,
			func(p *v1alpha1.Pod) { p.Spec.Containers[0].Resources.Limits[v1alpha1.ResourcePIDs] = "96" }, "no --pids-limit"},
		{"a removed limit: podman update cannot remove one", running,
			func(p *v1alpha1.Pod) { delete(p.Spec.Containers[0].Resources.Limits, v1alpha1.ResourceCPU) }, "cannot remove a cpu limit"},
		{"a resize of a container podman may restart, which would get its creation limits back", running,
			func(p *v1alpha1.Pod) { p.Spec.Containers[1].Resources.Limits[v1alpha1.ResourceMemory] = "96Mi" }, "main container again: podman update changes the running instance only"},
		{"a change of a container waiting to start (UPD-012)", map[string]ctrState{"i": ctrRunning, "live": ctrWaiting, "again": ctrWaiting},
			func(p *v1alpha1.Pod) { p.Spec.Containers[0].Resources.Limits[v1alpha1.ResourceMemory] = "96Mi" }, "main container live: it is waiting to start"},
		{"a deadline set by the update: podman pods have none (UPD-014)", running,
			func(p *v1alpha1.Pod) { p.Spec.ActiveDeadlineSeconds = &seven }, "activeDeadlineSeconds"},
	} {
		oldPod, newPod := updatePods()
		c.edit(newPod)
		calls, refused := planUpdate(oldPod, newPod, validation.MutableChanges(newPod, oldPod), c.states)
		if got := strings.Join(refused, "; "); !strings.Contains(got, c.want) || calls != nil {
			t.Errorf("%s: refused %q, calls %+v; want %q named and no call", c.name, got, calls, c.want)
		}
	}

	for _, c := range []struct {
		name   string
		states map[string]ctrState
		edit   func(*v1alpha1.Pod)
	}{
		{"labels and the grace period need no podman call", running, func(p *v1alpha1.Pod) {
			p.Metadata.Labels = map[string]string{"a": "b"}
			p.Spec.TerminationGracePeriodSeconds = &seven
		}},
		{"requests carry no runtime meaning (RES-002 applies limits)", running, func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Resources.Requests = v1alpha1.ResourceList{v1alpha1.ResourceMemory: "32Mi"}
		}},
		{"a started init container and a main container that ended for good take no effect (UPD-013)",
			map[string]ctrState{"i": ctrDone, "live": ctrDone, "again": ctrRunning}, func(p *v1alpha1.Pod) {
				p.Spec.InitContainers[0].Image = "oci:y"
				p.Spec.Containers[0].Env = []v1alpha1.EnvVar{{Name: "A", Value: "1"}}
			}},
	} {
		oldPod, newPod := updatePods()
		c.edit(newPod)
		calls, refused := planUpdate(oldPod, newPod, validation.MutableChanges(newPod, oldPod), c.states)
		if len(calls) > 0 || len(refused) > 0 {
			t.Errorf("%s: calls %+v, refused %q; want neither", c.name, calls, refused)
		}
	}
}

// TestStateOfAContainerForAnUpdate: running main containers can be resized; a started init
// container and a main container its restart policy does not restart are done; one podman
// will (re)start is waiting.
func TestStateOfAContainerForAnUpdate(t *testing.T) {
	in := func(status string, running bool, started bool, code int32) *inspected {
		var i inspected
		i.State.Status, i.State.Running, i.State.ExitCode = status, running, code
		if started {
			i.State.StartedAt = time.Now()
		}
		return &i
	}
	for _, c := range []struct {
		name, kind, restart string
		in                  *inspected
		podStarted          bool
		want                ctrState
	}{
		{"a running main container", "main", "no", in("running", true, true, 0), true, ctrRunning},
		{"a running init container has started", "init", "no", in("running", true, true, 0), false, ctrDone},
		{"an exited init container", "init", "on-failure", in("exited", false, true, 0), false, ctrDone},
		{"a main container created while the init containers run", "main", "no", in("created", false, false, 0), false, ctrWaiting},
		{"a main container pod start could not start (StartError)", "main", "no", in("created", false, false, 0), true, ctrDone},
		{"an exited main container under Never", "main", "no", in("exited", false, true, 3), true, ctrDone},
		{"a main container that exited 0 under OnFailure", "main", "on-failure", in("exited", false, true, 0), true, ctrDone},
		{"a main container that failed under OnFailure: podman restarts it", "main", "on-failure", in("exited", false, true, 1), true, ctrWaiting},
		{"an exited main container under Always", "main", "always", in("exited", false, true, 0), true, ctrWaiting},
		{"a container podman lost", "main", "no", nil, true, ctrWaiting},
	} {
		if got := stateOf(c.kind, c.restart, c.in, c.podStarted); got != c.want {
			t.Errorf("%s: state %d, want %d", c.name, got, c.want)
		}
	}
}

// TestSecurityArgsCarryTheSecurityContext: every container gets no-new-privileges (SEC-001), and
// its securityContext becomes podman's --user, --read-only (without its tmpfs mounts) and
// --cap-drop/--cap-add.
func TestSecurityArgsCarryTheSecurityContext(t *testing.T) {
	uid, gid, yes := int64(1000), int64(3000), true
	got := securityArgs(&v1alpha1.SecurityContext{RunAsUser: &uid, RunAsGroup: &gid, RunAsNonRoot: &yes, ReadOnlyRootFilesystem: &yes,
		Capabilities: &v1alpha1.Capabilities{Drop: []v1alpha1.Capability{"ALL"}, Add: []v1alpha1.Capability{"NET_BIND_SERVICE"}}})
	want := []string{"--security-opt", "no-new-privileges", "--user", "1000:3000", "--read-only", "--read-only-tmpfs=false", "--cap-drop", "ALL", "--cap-add", "NET_BIND_SERVICE"}
	if !slices.Equal(got, want) {
		t.Errorf("securityArgs = %q, want %q", got, want)
	}
	if got := securityArgs(&v1alpha1.SecurityContext{RunAsUser: &uid}); !slices.Equal(got, []string{"--security-opt", "no-new-privileges", "--user", "1000"}) {
		t.Errorf("runAsUser alone: %q, want --user 1000", got)
	}
	if got := securityArgs(nil); !slices.Equal(got, []string{"--security-opt", "no-new-privileges"}) {
		t.Errorf("no securityContext: %q, want no-new-privileges alone", got)
	}
	plain := v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "a", Image: "oci:x", SecurityContext: &v1alpha1.SecurityContext{RunAsUser: &uid, RunAsNonRoot: &yes}}}}
	if u := Unsupported(&plain); len(u) != 0 {
		t.Errorf("runAsNonRoot with runAsUser 1000: refused %v, want accepted", u)
	}
}

// fakePodman returns an adapter whose podman is a script that appends each command line it is
// given to a log, one line each, answers `image inspect` of the image it holds (named held, or
// by its ID) with what the --format asks of heldOutput (its ID, then its RepoDigests) and fails
// it for any other, and answers `pull` with pulledID.
// log reads the command lines, without the global flags the adapter puts first.
func fakePodman(t *testing.T, held, heldOutput, pulledID string) (a *Adapter, log func() []string) {
	t.Helper()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "log")
	script := `#!/bin/sh
while [ "${1#--}" != "$1" ]; do shift 2; done
echo "$*" >>` + logFile + `
format=$4
case "$1 $2" in
"image inspect") for last; do :; done
	set -- ` + heldOutput + `
	if [ "$last" != '` + held + `' ] && [ "$last" != "$1" ]; then echo "Error: $last: image not known" >&2; exit 125; fi
	case "$format" in *RepoDigests*) echo "$@";; *) echo "$1";; esac;;
"pull -q"*) echo '` + pulledID + `';;
esac
`
	bin := filepath.Join(dir, "podman")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Adapter{Root: dir, Podman: bin}, func() []string {
		b, err := os.ReadFile(logFile)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

// TestAHeldImageIsInspectedOnce: an image podman holds (imagePullPolicy IfNotPresent) is read
// with one `podman image inspect`, which gives both its ID and its digest; an image it does not
// hold is pulled and then inspected by the ID the pull printed.
func TestAHeldImageIsInspectedOnce(t *testing.T) {
	const repo, digest = "127.0.0.1:5000/busybox", "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	ref := repo + ":v1"
	a, log := fakePodman(t, ref, "sha256:held "+repo+"@"+digest, "")
	img, err := a.pull(context.Background(), ref, v1alpha1.PullIfNotPresent, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (pulledImage{id: "sha256:held", imageID: repo + "@" + digest}); img != want {
		t.Errorf("held image: %+v, want %+v", img, want)
	}
	if got := log(); len(got) != 1 || !strings.HasPrefix(got[0], "image inspect ") {
		t.Errorf("podman commands for a held image:\n%s\nwant one image inspect", strings.Join(got, "\n"))
	}

	a, log = fakePodman(t, "sha256:pulled", "sha256:pulled "+repo+"@"+digest, "sha256:pulled")
	img, err = a.pull(context.Background(), ref, v1alpha1.PullIfNotPresent, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (pulledImage{id: "sha256:pulled", imageID: repo + "@" + digest}); img != want {
		t.Errorf("pulled image: %+v, want %+v", img, want)
	}
	got := log()
	want := []string{"image inspect", "pull -q", "image inspect"}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(got[i], want[i]+" ")
	}
	if !ok || !strings.HasSuffix(got[len(got)-1], " sha256:pulled") {
		t.Errorf("podman commands for an image podman does not hold:\n%s\nwant image inspect, pull, image inspect sha256:pulled", strings.Join(got, "\n"))
	}
}
