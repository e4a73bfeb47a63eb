package podman

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/registrytest"
	"podspec.dev/podspec/ocilayout"
)

// These tests run real podman, as root, each in a root of its own under t.TempDir(); every pod
// they create is removed, and the root's podman storage reset, even when a test fails.

// realAdapter returns an adapter on a fresh root and an image reference (busybox, with user as
// the image configuration's User), or skips when podman cannot run here.
func realAdapter(t *testing.T, user string) (*Adapter, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the adapter drives rootful podman")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed")
	}
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skipf("no static busybox at %s for the test image", ocilayout.BusyboxPath)
	}
	// podman refuses a run root longer than 50 characters, and its oci: transport names an image
	// after its layout's path, refusing upper-case letters: t.TempDir() fails both.
	root, err := os.MkdirTemp("", "pmtest")
	if err != nil {
		t.Fatal(err)
	}
	a := &Adapter{Root: root, OCIRuntime: "runc"} // as the command's default (crun refuses this host's hybrid cgroups)
	layout := filepath.Join(root, "image")
	if _, err := ocilayout.Build(context.Background(), layout, ocilayout.BuildOptions{Busybox: true, Tag: "t", User: user}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		pods, _ := a.List(ctx)
		for _, p := range pods {
			if err := a.Remove(ctx, p.Name, true); err != nil {
				t.Errorf("rm --force %s: %v", p.Name, err)
			}
		}
		// Whatever podman still holds of the root (images, the infra image, mounts).
		if out, err := a.cmd(ctx, "system", "reset", "--force").CombinedOutput(); err != nil {
			t.Errorf("podman system reset: %v: %s", err, out)
		}
		os.RemoveAll(root)
	})
	return a, "oci:" + layout + ":t"
}

func mainStatus(st *v1alpha1.PodStatus, name string) *v1alpha1.ContainerStatus {
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Name == name {
			return &st.ContainerStatuses[i]
		}
	}
	return nil
}

func busyboxPod(name, image string, init []string, main ...string) *v1alpha1.Pod {
	grace := int64(1)
	p := &v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: name}, Spec: v1alpha1.PodSpec{
		RestartPolicy: v1alpha1.RestartPolicyNever, TerminationGracePeriodSeconds: &grace,
		Containers: []v1alpha1.Container{{Name: "app", Image: image, Command: append([]string{"/bin/busybox"}, main...)}}}}
	if init != nil {
		p.Spec.InitContainers = []v1alpha1.Container{{Name: "init", Image: image, Command: append([]string{"/bin/busybox"}, init...)}}
	}
	return p
}

// TestRunDetachReturnsWhileTheInitContainerRuns (EXIT-009, contract 4.2): `podman pod start`
// runs the init containers to completion before it starts the main containers; run --detach
// must not wait for that, so the pod is seen Pending, with its init container running and its
// main container waiting, and Running once the main container started.
func TestRunDetachReturnsWhileTheInitContainerRuns(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	if _, err := a.Create(ctx, busyboxPod("phases", image, []string{"sleep", "4"}, "sleep", "60"), ""); err != nil {
		t.Fatal(err)
	}
	sawInit := false
	deadline := time.Now().Add(90 * time.Second)
	for {
		st, err := a.Status(ctx, "phases")
		if err != nil {
			t.Fatal(err)
		}
		app := mainStatus(st, "app")
		if app != nil && app.State.Running != nil {
			if st.Phase != v1alpha1.PodRunning {
				t.Fatalf("main container running, phase %s\n%+v", st.Phase, st)
			}
			break
		}
		if ic := st.InitContainerStatuses; len(ic) == 1 && ic[0].State.Running != nil {
			sawInit = true
			if st.Phase != v1alpha1.PodPending || app == nil || app.State.Waiting == nil {
				t.Fatalf("init container running: phase %s, want Pending and app waiting\n%+v", st.Phase, st)
			}
		}
		if time.Now().After(deadline) {
			rec, _ := a.load("phases")
			errText, _ := os.ReadFile(filepath.Join(a.startDir(rec), "err"))
			t.Fatalf("app never ran (podman pod start: %q)\n%+v", errText, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !sawInit {
		t.Errorf("run --detach returned only after the init container ended (4 s): podman pod start was waited for")
	}
}

// waitAppRunning polls the pod's status until its main container app runs (90 s at most).
func waitAppRunning(t *testing.T, a *Adapter, pod string) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		st, err := a.Status(context.Background(), pod)
		if err != nil {
			t.Fatal(err)
		}
		if app := mainStatus(st, "app"); app != nil && app.State.Running != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("app never ran\n%+v", st)
		}
	}
}

// TestReasonIsSetWhenTheStopBegins (EXIT-020): the status of a pod whose stop sequence runs (app,
// busybox sleep as PID 1, ignores its SIGTERM until the budget end) already says reason Stopped,
// and the terminal status keeps it.
func TestReasonIsSetWhenTheStopBegins(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	if _, err := a.Create(ctx, busyboxPod("reason", image, nil, "sleep", "60"), ""); err != nil {
		t.Fatal(err)
	}
	waitAppRunning(t, a, "reason")
	grace := int64(5)
	if err := a.Stop(ctx, "reason", &grace, false); err != nil {
		t.Fatal(err)
	}
	st, err := a.Status(ctx, "reason")
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed {
		t.Fatalf("terminal right after the stop request, though app ignores SIGTERM for 5 s\n%+v", st)
	}
	terminating := false
	for _, c := range st.Conditions {
		terminating = terminating || (c.Type == v1alpha1.PodTerminating && c.Status == v1alpha1.ConditionTrue)
	}
	if !terminating || st.Reason != v1alpha1.ReasonStopped {
		t.Errorf("while terminating: conditions %+v, reason %q, want Terminating True and reason Stopped", st.Conditions, st.Reason)
	}
	if st, err = a.Wait(ctx, "reason", 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if st.Reason != v1alpha1.ReasonStopped {
		t.Errorf("terminal reason %q, want Stopped, as while terminating", st.Reason)
	}
}

// TestStartErrorOfAUserTheImageDoesNotDefine (IMG-012): podman refuses to start a container
// whose image User is not in the image's /etc/passwd, says so only in `pod start`'s error, and
// leaves the container "created"; the adapter reports that instance terminated with reason
// StartError and no exit code, and records its ContainerExited.
func TestStartErrorOfAUserTheImageDoesNotDefine(t *testing.T) {
	a, image := realAdapter(t, "nosuchuser")
	ctx := context.Background()
	if _, err := a.Create(ctx, busyboxPod("nouser", image, nil, "true"), ""); err != nil {
		t.Fatalf("run --detach: %v (a start failure is not a creation failure)", err)
	}
	var term *v1alpha1.ContainerStateTerminated
	for deadline := time.Now().Add(90 * time.Second); term == nil; time.Sleep(200 * time.Millisecond) {
		st, err := a.Status(ctx, "nouser")
		if err != nil {
			t.Fatal(err)
		}
		if app := mainStatus(st, "app"); app != nil && app.State.Running != nil {
			t.Fatalf("app runs as a user the image does not define\n%+v", st)
		}
		if app := mainStatus(st, "app"); app != nil {
			term = app.State.Terminated
		}
		if time.Now().After(deadline) {
			t.Fatalf("no termination of app\n%+v", st)
		}
	}
	if term.Reason != v1alpha1.ReasonStartError || term.ExitCode != nil || term.Message == "" {
		t.Errorf("terminated %+v, want reason StartError, no exit code, podman's message", term)
	}
	evs, _, err := a.Events(ctx, "nouser")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Type == rtv1.EventContainerExited && e.Container == "app" {
			n++
			if e.Reason != v1alpha1.ReasonStartError || e.ExitCode != nil {
				t.Errorf("ContainerExited %+v, want reason StartError without exit code", e)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d ContainerExited for app, want 1: %+v", n, evs)
	}
}

// TestPodmanRunsInTheRootsOwnDirectory: conmon creates its OOM marker file in podman's working
// directory; podman runs in ROOT/cwd, so nothing lands in the caller's directory.
func TestPodmanRunsInTheRootsOwnDirectory(t *testing.T) {
	a := &Adapter{Root: t.TempDir()}
	if c := a.cmd(context.Background(), "version"); c.Dir != filepath.Join(a.Root, "cwd") {
		t.Errorf("podman runs in %q, want %q", c.Dir, filepath.Join(a.Root, "cwd"))
	}
}

// TestInitRestartAndExitPolicy: an init container that fails once under restartPolicy
// OnFailure is restarted by podman (INIT-002's mapping) before the main containers start;
// when the last main container exited, podman's exit policy stops the infra container, which
// the adapter reports as PolicyFired (exitPolicy All, the last main container to exit) and
// PodTerminating with termination reason Failed (b failed), then PodFinished.
func TestInitRestartAndExitPolicy(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	p := busyboxPod("policy", image, []string{"sh", "-c", "[ -f /x ] || { touch /x; exit 2; }"}, "sleep", "1")
	p.Spec.RestartPolicy = v1alpha1.RestartPolicyOnFailure
	never := v1alpha1.RestartPolicyNever
	p.Spec.Containers = append(p.Spec.Containers, v1alpha1.Container{Name: "b", Image: image, RestartPolicy: &never,
		Command: []string{"/bin/busybox", "sh", "-c", "sleep 2; exit 3"}})
	if _, err := a.Create(ctx, p, ""); err != nil {
		t.Fatal(err)
	}
	st, err := a.Wait(ctx, "policy", 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != v1alpha1.PodFailed || st.DecidedBy != "b" || st.ExitCode == nil || *st.ExitCode != 3 {
		t.Errorf("final status %+v, want Failed, decided by b, exit code 3", st)
	}
	if n := st.InitContainerStatuses[0].RestartCount; n != 1 {
		t.Errorf("init restartCount %d, want 1 (it failed once under OnFailure)", n)
	}
	evs, finished, err := a.Events(ctx, "policy")
	if err != nil || !finished {
		t.Fatalf("events: %v, finished %v", err, finished)
	}
	var types []string
	lastExited, lastExitedAt, fired := "", -1, -1
	for i, e := range evs {
		types = append(types, string(e.Type))
		switch {
		case e.Type == rtv1.EventContainerExited && e.ContainerKind == "main":
			lastExited, lastExitedAt = e.Container, i
		case e.Type == rtv1.EventPolicyFired:
			if fired >= 0 {
				t.Errorf("PolicyFired twice: %v", types)
			}
			fired = i
			if e.Reason != "All" || e.Container != lastExited {
				t.Errorf("PolicyFired %+v, want reason All, container %s (the last main container to exit)", e, lastExited)
			}
		}
	}
	if fired < 0 || fired < lastExitedAt || evs[fired+1].Type != rtv1.EventPodTerminating || evs[fired+1].Reason != "Failed" {
		t.Errorf("want the last main ContainerExited, then PolicyFired, then PodTerminating (Failed): %v", types)
	}
}

// TestUpdateResizesTheRunningContainer (UPD-010, UPD-005, UPD-006): an update of a running
// container's cpu and memory limits is `podman update`: the same process (podman's State.Pid,
// the same instance ID) reads the new limits in its own cgroup, the generation is 2 in the
// status and in UpdateApplied; an image change podman cannot make is refused with Failed and
// changes neither the generation nor the limits; the same manifest again takes no generation.
func TestUpdateResizesTheRunningContainer(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	pod := func(cpu, memory string) *v1alpha1.Pod {
		p := busyboxPod("resize", image, nil, "sleep", "300")
		p.Spec.Containers[0].Resources = &v1alpha1.ResourceRequirements{Limits: v1alpha1.ResourceList{
			v1alpha1.ResourceCPU: v1alpha1.Quantity(cpu), v1alpha1.ResourceMemory: v1alpha1.Quantity(memory)}}
		p.SetDefaults()
		return p
	}
	if _, err := a.Create(ctx, pod("500m", "64Mi"), ""); err != nil {
		t.Fatal(err)
	}
	rec, err := a.load("resize")
	if err != nil {
		t.Fatal(err)
	}
	id := rec.Containers[0].ID
	// pid is podman's PID of the container's process; cgroup reads a file of its cgroup from
	// inside the container (cgroup v1: podman mounts the container's own hierarchy).
	pid := func() string {
		out, err := a.run(ctx, "inspect", "--format", "{{.State.Pid}}", id)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	cgroup := func(file string) string {
		out, err := a.run(ctx, "exec", id, "/bin/busybox", "cat", "/sys/fs/cgroup/"+file)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	waitAppRunning(t, a, "resize")
	before := pid()
	if got := cgroup("memory/memory.limit_in_bytes"); got != "67108864" {
		t.Fatalf("memory limit before the update: %s, want 64Mi", got)
	}
	st, err := a.Update(ctx, pod("250m", "96Mi"))
	if err != nil {
		t.Fatalf("update of cpu and memory limits: %v", err)
	}
	if st.ObservedGeneration != 2 {
		t.Errorf("status printed by update: observedGeneration %d, want 2", st.ObservedGeneration)
	}
	if got := cgroup("memory/memory.limit_in_bytes"); got != "100663296" {
		t.Errorf("memory limit after the update: %s, want 96Mi (100663296)", got)
	}
	if got := cgroup("cpu/cpu.cfs_quota_us"); got != "25000" {
		t.Errorf("cpu quota after the update: %s, want 25000 (250m of a 100000 µs period)", got)
	}
	if after := pid(); after != before {
		t.Errorf("the process changed: PID %s before, %s after the update", before, after)
	}

	bad := pod("250m", "96Mi")
	bad.Spec.Containers[0].Image = image + "x"
	_, err = a.Update(ctx, bad)
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != rtv1.CodeFailed || !strings.Contains(pe.Message, "changed image") {
		t.Errorf("an image change: %v, want Failed naming the image change", err)
	}
	if st, err := a.Update(ctx, pod("250m", "96Mi")); err != nil || st.ObservedGeneration != 2 {
		t.Errorf("the same manifest again: %v, observedGeneration %v; want accepted, still 2", err, st)
	}
	evs, _, err := a.Events(ctx, "resize")
	if err != nil {
		t.Fatal(err)
	}
	var gens []int64
	for _, e := range evs {
		if e.Type == rtv1.EventUpdateApplied {
			gens = append(gens, e.Generation)
		}
	}
	if len(gens) != 1 || gens[0] != 2 {
		t.Errorf("UpdateApplied generations %v, want [2]", gens)
	}
	if st, err := a.Status(ctx, "resize"); err != nil || mainStatus(st, "app").ContainerID != instanceID(id, 0) {
		t.Errorf("after the updates: %v, %+v; want the first instance still", err, st)
	}
}

// deadCreator is a creator that ran and is gone: a process this test started and reaped.
func deadCreator(t *testing.T) *creator {
	t.Helper()
	c := exec.Command("/bin/true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return &creator{PID: c.Process.Pid, Start: 1}
}

// TestSUP010_ACreationCutShortLeavesNothingAndItsNameFree injects what a `run` killed at each of
// its steps leaves (the reserved record; the podman pod too; some containers too) and requires
// that the next verb finds nothing (NotFound) and that what the run made is gone, from a status,
// a stop (which holds the pod's lock when it reads the record) and a run of the same name, which
// then creates the pod whole. A creation whose run is still alive is not a pod yet, and its name
// is not free.
func TestSUP010_ACreationCutShortLeavesNothingAndItsNameFree(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	podExists := func(name string) bool {
		return a.cmd(ctx, "pod", "exists", name).Run() == nil
	}
	leave := func(name string, step int) {
		t.Helper()
		rec := &podRecord{Name: name, UID: newUID(), CreatedAt: time.Now().UTC(), Spec: busyboxPod(name, image, nil, "sleep", "60").Spec, Creator: deadCreator(t)}
		if err := a.setup(); err != nil {
			t.Fatal(err)
		}
		if err := a.reserve(rec); err != nil {
			t.Fatal(err)
		}
		if step >= 1 {
			if _, err := a.run(ctx, "pod", "create", "--name", name, "--network", "none", "--label", "podspec.uid="+rec.UID); err != nil {
				t.Fatal(err)
			}
		}
		if step >= 2 {
			img, err := a.pull(ctx, image, "", "")
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.run(ctx, "create", "--pod", name, img.id, "/bin/busybox", "sleep", "60")
			if err != nil {
				t.Fatal(err)
			}
			rec.Containers = []containerRecord{{Name: "app", Kind: "main", ID: strings.TrimSpace(string(out)), Image: image}}
			if err := a.save(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	for step := 0; step <= 2; step++ {
		for _, verb := range []string{"status", "stop", "run"} {
			name := fmt.Sprintf("cut-%d-%s", step, verb)
			leave(name, step)
			var err error
			switch verb {
			case "status":
				_, err = a.Status(ctx, name)
			case "stop":
				done := make(chan error, 1)
				go func() { done <- a.Stop(ctx, name, nil, false) }()
				select {
				case err = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("step %d: stop of a creation cut short hangs (its own lock?)", step)
				}
			case "run":
				if _, err := a.Create(ctx, busyboxPod(name, image, nil, "sleep", "60"), ""); err != nil {
					t.Fatalf("step %d: run of the name a killed run left: %v", step, err)
				}
				if _, err := a.Status(ctx, name); err != nil {
					t.Fatalf("step %d: the new pod: %v", step, err)
				}
				if err := a.Remove(ctx, name, true); err != nil {
					t.Fatal(err)
				}
				continue
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != rtv1.CodeNotFound {
				t.Errorf("step %d: %s of a creation cut short: %v, want NotFound", step, verb, err)
			}
			if verb == "status" {
				if _, err := os.Stat(a.recordPath(name)); !errors.Is(err, os.ErrNotExist) || podExists(name) {
					t.Errorf("step %d: after status, the record (%v) or the podman pod (%t) of the creation is left", step, err, podExists(name))
				}
			}
			// Whatever verb found it, a run of the name creates the pod whole.
			if _, err := a.Create(ctx, busyboxPod(name, image, nil, "sleep", "60"), ""); err != nil {
				t.Fatalf("step %d: run after %s: %v", step, verb, err)
			}
			if err := a.Remove(ctx, name, true); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A creation whose run is alive: not a pod (NotFound), and its name is taken.
	rec := &podRecord{Name: "creating", UID: newUID(), CreatedAt: time.Now().UTC(), Creator: self()}
	if err := a.reserve(rec); err != nil {
		t.Fatal(err)
	}
	defer a.removeAll(ctx, rec)
	if _, err := a.Status(ctx, "creating"); err == nil {
		t.Error("status of a pod still being created answered a status")
	}
	_, err := a.Create(ctx, busyboxPod("creating", image, nil, "sleep", "60"), "")
	if pe := (*Error)(nil); !errors.As(err, &pe) || pe.Code != rtv1.CodeConflict {
		t.Errorf("run of a name being created: %v, want Conflict", err)
	}
	if _, err := os.Stat(a.recordPath("creating")); err != nil {
		t.Errorf("the live creation's record was removed: %v", err)
	}
}

// A registry image is handed to podman as it is: a pod naming a loopback registry's image runs
// (podman pulls it, plain HTTP allowed for loopback only), and its status reports as imageID
// the manifest podman holds for it, by digest (IMG-016): a tag's, an image held
// (IfNotPresent), and an OCI layout's as oci:PATH@DIGEST. Of an image pulled through a
// multi-platform index podman records the index's digest beside the platform's manifest's,
// with nothing to tell them apart: the adapter reports no imageID rather than a guess.
func TestARegistryImageIsPulledByPodman(t *testing.T) {
	a, layoutRef := realAdapter(t, "")
	layoutDir := strings.TrimSuffix(strings.TrimPrefix(layoutRef, "oci:"), ":t")
	reg := registrytest.Start(t, registrytest.Options{})
	single := reg.Push(layoutDir, reg.Ref("busybox:v1"))
	// The index's images are podman images of their own: podman lists every digest of an
	// image under each of its names, so an image pulled through the index too would have two
	// digests under busybox as well.
	platforms := map[string]string{"foreign": "s390x", "native": runtime.GOARCH}
	if runtime.GOARCH == "s390x" {
		platforms["foreign"] = "ppc64le"
	}
	var index []registrytest.PlatformImage
	for _, p := range []string{"foreign", "native"} {
		dir := filepath.Join(t.TempDir(), p)
		if _, err := ocilayout.Build(context.Background(), dir, ocilayout.BuildOptions{Busybox: true, Tag: "t", Labels: map[string]string{"platform": p}}); err != nil {
			t.Fatal(err)
		}
		index = append(index, registrytest.PlatformImage{Layout: dir, Tag: "t", OS: "linux", Architecture: platforms[p]})
	}
	reg.PushIndex(reg.Ref("multi:v1"), index...)
	r, err := ocilayout.ParseReference(layoutRef, "")
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocilayout.Resolve(context.Background(), r, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct{ pod, image, imageID string }{
		{"from-registry", reg.Ref("busybox:v1"), reg.Ref("busybox@" + single)},
		{"from-index", reg.Ref("multi:v1"), ""},
		{"held", reg.Ref("busybox:v1"), reg.Ref("busybox@" + single)},
		{"from-layout", layoutRef, "oci:" + layoutDir + "@" + img.Digest},
	} {
		if _, err := a.Create(ctx, busyboxPod(c.pod, c.image, nil, "true"), ""); err != nil {
			t.Fatal(err)
		}
		if term := appTerminated(t, a, c.pod); term.ExitCode == nil || *term.ExitCode != 0 {
			t.Fatalf("the container of %s ended %+v", c.image, term)
		}
		st, err := a.Status(ctx, c.pod)
		if err != nil {
			t.Fatal(err)
		}
		if got := mainStatus(st, "app").ImageID; got != c.imageID {
			t.Errorf("pod %s of %s: imageID %q, want %q", c.pod, c.image, got, c.imageID)
		}
	}
}

// appTerminated waits, 90 seconds at most, for the container "app" of a pod to end, and
// returns how it ended.
func appTerminated(t *testing.T, a *Adapter, pod string) *v1alpha1.ContainerStateTerminated {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		st, err := a.Status(context.Background(), pod)
		if err != nil {
			t.Fatal(err)
		}
		if app := mainStatus(st, "app"); app != nil && app.State.Terminated != nil {
			return app.State.Terminated
		}
		if time.Now().After(deadline) {
			t.Fatalf("app of %s never ended\n%+v", pod, st)
		}
	}
}

// TestSecurityContextReachesPodman (SEC-021, SEC-023, SEC-024): runAsUser and runAsGroup,
// readOnlyRootFilesystem and capabilities drop ALL, add NET_BIND_SERVICE are what podman's
// container gets; the workload's exit code names the first check that failed.
func TestSecurityContextReachesPodman(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	uid, gid, yes := int64(1000), int64(3000), true
	p := busyboxPod("secctx", image, nil, "sh", "-c",
		`[ "$(id -u):$(id -g)" = 1000:3000 ] || exit 11; touch /x 2>/dev/null && exit 12; grep -qx "CapBnd:.0000000000000400" /proc/self/status || exit 13; grep -qx "NoNewPrivs:.1" /proc/self/status || exit 14; exit 0`)
	p.Spec.Containers[0].SecurityContext = &v1alpha1.SecurityContext{RunAsUser: &uid, RunAsGroup: &gid, RunAsNonRoot: &yes, ReadOnlyRootFilesystem: &yes,
		Capabilities: &v1alpha1.Capabilities{Drop: []v1alpha1.Capability{"ALL"}, Add: []v1alpha1.Capability{"NET_BIND_SERVICE"}}}
	if _, err := a.Create(ctx, p, ""); err != nil {
		t.Fatal(err)
	}
	if term := appTerminated(t, a, "secctx"); term.ExitCode == nil || *term.ExitCode != 0 {
		t.Errorf("app %+v, want exit 0 (11: user, 12: writable root filesystem, 13: capabilities, 14: noNewPrivileges)", term)
	}
}

// TestSTAT008_ARestartedContainersLastStateIsThePreviousInstancesEnd: podman restarts a
// container in place and its inspect holds only the current instance's state; the adapter
// reports the previous instance's end as lastState.terminated, the same as that instance's
// ContainerExited, both while the next instance runs and once it has ended (app exits 3, then
// 4, then runs until the test lets it exit 0).
func TestSTAT008_ARestartedContainersLastStateIsThePreviousInstancesEnd(t *testing.T) {
	a, image := realAdapter(t, "")
	ctx := context.Background()
	p := busyboxPod("last", image, nil, "sh", "-c", `n=$(cat /data/n 2>/dev/null || echo 0); echo $((n+1)) > /data/n
case $n in 0) exit 3;; 1) exit 4;; esac
while [ ! -f /data/go ]; do sleep 0.1; done`)
	p.Spec.RestartPolicy = v1alpha1.RestartPolicyOnFailure
	p.Spec.Volumes = []v1alpha1.Volume{{Name: "data", EmptyDir: &v1alpha1.EmptyDirVolumeSource{}}}
	p.Spec.Containers[0].VolumeMounts = []v1alpha1.VolumeMount{{Name: "data", MountPath: "/data"}}
	rec, err := a.Create(ctx, p, "")
	if err != nil {
		t.Fatal(err)
	}
	// exited is app's ContainerExited of instance n, as the adapter's events report it.
	exited := func(n int32) rtv1.Event {
		t.Helper()
		evs, _, err := a.Events(ctx, "last")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Type == rtv1.EventContainerExited && e.Container == "app" && *e.RestartCount == n {
				return e
			}
		}
		t.Fatalf("no ContainerExited of app's instance %d: %+v", n, evs)
		return rtv1.Event{}
	}
	// wantLast checks that app's lastState is instance 1's end, exit code 4, as its event says.
	wantLast := func(app *v1alpha1.ContainerStatus) {
		t.Helper()
		e, last := exited(1), app.LastState.Terminated
		if last == nil {
			t.Fatalf("restartCount %d and no lastState.terminated: %+v", app.RestartCount, app)
		}
		if last.ExitCode == nil || *last.ExitCode != 4 || last.Reason != v1alpha1.ReasonError || last.ContainerID != e.ContainerID ||
			!last.FinishedAt.Equal(e.Time) || last.StartedAt.IsZero() || last.StartedAt.After(last.FinishedAt) {
			t.Errorf("lastState.terminated %+v, want instance 1's end as its ContainerExited %+v says (exit 4, Error)", last, e)
		}
	}
	var app *v1alpha1.ContainerStatus
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		st, err := a.Status(ctx, "last")
		if err != nil {
			t.Fatal(err)
		}
		if app = mainStatus(st, "app"); app != nil && app.RestartCount == 2 && app.State.Running != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("app's third instance never ran\n%+v", st)
		}
	}
	wantLast(app)
	if err := os.WriteFile(filepath.Join(a.Root, "volumes", rec.UID, "data", "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := a.Wait(ctx, "last", 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	app = mainStatus(st, "app")
	if term := app.State.Terminated; app.RestartCount != 2 || term == nil || term.ExitCode == nil || *term.ExitCode != 0 {
		t.Fatalf("final app %+v, want restartCount 2 and the third instance's exit 0 as its state", app)
	}
	wantLast(app)
}
