package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/notify"
)

// BenchmarkNotificationScale is the issue-4 scale figure (docs/benchmarks.md, "Notifications"):
// it starts PODSPEC_BENCH_PODS (default 100) running pods through the command line, each with
// its own supervisor, then creates PreExistingPods Notifications selecting the first 10 and all
// of them: with a signal notifier (the fan-out itself: runc kill per pod), an exec notifier
// that succeeds (runc exec per pod), and one that fails everywhere (the failures list at its
// bound). It reports the time from `notify` to every result final, the size in bytes of the
// parent status and the load average (the machine may be shared). It never asserts a time; it
// fails only if a result is wrong or the status outgrows its bound. Run it alone, once:
//
//	go test ./cmd/podspec -run '^$' -bench NotificationScale -benchtime 1x -v
func BenchmarkNotificationScale(b *testing.B) {
	n := 100
	if s := os.Getenv("PODSPEC_BENCH_PODS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 10 {
			b.Fatalf("PODSPEC_BENCH_PODS=%q: want a number ≥ 10", s)
		}
		n = v
	}
	for i := 0; i < b.N; i++ {
		benchNotificationScale(b, n)
	}
}

func benchNotificationScale(b *testing.B, n int) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	if _, err := exec.LookPath("runc"); err != nil {
		b.Skip("needs runc")
	}
	dir := b.TempDir()
	layout := filepath.Join(dir, "busybox")
	root := filepath.Join(dir, "root")
	self, _ := os.Executable()
	podspec := func(args ...string) (string, error) {
		cmd := exec.Command(self, append([]string{"--root", root, "--error-format", "json"}, args...)...)
		cmd.Env = append(os.Environ(), "PODSPEC_TEST_AS_CLI=1")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return out.String(), fmt.Errorf("podspec %s: %v: %s", strings.Join(args, " "), err, errb.String())
		}
		return out.String(), nil
	}
	if _, err := ocilayout.Build(context.Background(), layout, ocilayout.BuildOptions{Busybox: true, Cmd: []string{"sh"}}); err != nil {
		b.Fatal(err)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("bench-%03d", i)
	}
	b.Cleanup(func() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for _, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				podspec("rm", "--force", name)
			}()
		}
		wg.Wait()
		// A removal that failed under load is retried once; a pod still there is an error.
		for attempt := 0; attempt < 2; attempt++ {
			out, _ := podspec("list")
			var pods []struct{ Name string }
			json.Unmarshal([]byte(out), &pods)
			if len(pods) == 0 {
				break
			}
			for _, p := range pods {
				if _, err := podspec("rm", "--force", p.Name); err != nil && attempt == 1 {
					b.Errorf("pod %s left behind: %v", p.Name, err)
				}
			}
		}
		left, _ := exec.Command("runc", "--root", filepath.Join(root, "runc"), "list", "-q").Output()
		if strings.TrimSpace(string(left)) != "" {
			b.Errorf("runc containers left: %s", left)
		}
		if r := runnersOf(root); len(r) > 0 {
			b.Errorf("runners left: %v", r)
		}
	})

	// Start the pods: cheap busybox sleepers, 8 `run --detach` at a time.
	begin := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	errs := make(chan error, n)
	for i, name := range names {
		tier := "rest"
		if i < 10 {
			tier = "ten"
		}
		file := filepath.Join(dir, name+".yaml")
		os.WriteFile(file, []byte(fmt.Sprintf(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: %s, labels: {bench: "yes", tier: %s}}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: "oci:%s"
    command: [sleep, "3600"]
    notifiers:
    - {name: hup, action: {signal: SIGHUP}}
    - {name: ok, timeoutSeconds: 600, action: {exec: {command: ["true"]}}}
    - {name: fail, timeoutSeconds: 600, action: {exec: {command: [sh, -c, "exit 3"]}}}
`, name, tier, layout)), 0o644)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := podspec("run", "--detach", file); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for _, name := range names {
		for {
			st := readStateB(b, root, name)
			if cs := st.Pod.Status.ContainerStatuses; len(cs) == 1 && cs[0].Started {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("pod %s not Started", name)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	b.Logf("%d pods running after %s; loadavg %s", n, time.Since(begin).Round(time.Millisecond), loadavg())

	ns := &notify.Store{Dir: filepath.Join(root, notify.Dir)}
	measure := func(name, notifier, selector string, want int) {
		file := filepath.Join(dir, name+".yaml")
		os.WriteFile(file, []byte(fmt.Sprintf("apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: %s}\nspec:\n  notifier: %s\n  selector: {matchLabels: {%s}}\n", name, notifier, selector)), 0o644)
		start := time.Now()
		if _, err := podspec("notify", file); err != nil {
			b.Fatal(err)
		}
		var st *v1alpha1.NotificationStatus
		for {
			o, err := ns.Get(name)
			if err != nil {
				b.Fatal(err)
			}
			st = o.Notification.Status
			if notify.Final(st.Phase) {
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("%s not final: %+v", name, st)
			}
			time.Sleep(10 * time.Millisecond)
		}
		wall := time.Since(start)
		out, err := podspec("notification", "status", name)
		if err != nil {
			b.Fatal(err)
		}
		size := len(strings.TrimSpace(out))
		recs, err := notify.Records(ns.Path(name))
		if err != nil {
			b.Fatal(err)
		}
		var last time.Time
		for _, r := range recs {
			if r.FinishedAt != nil && r.FinishedAt.After(last) {
				last = *r.FinishedAt
			}
		}
		recBytes := 0
		ents, _ := os.ReadDir(filepath.Join(ns.Path(name), notify.RecordsDir))
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				recBytes += int(fi.Size())
			}
		}
		if int(st.Targets) != want || len(recs) != want {
			b.Errorf("%s: %d targets, %d records, want %d", name, st.Targets, len(recs), want)
		}
		if len(st.Failures) > v1alpha1.MaxNotificationFailures {
			b.Errorf("%s: %d failures kept, more than the bound", name, len(st.Failures))
		}
		if notifier != "fail" && (st.Phase != v1alpha1.NotificationSucceeded || int(st.Succeeded) != want) {
			b.Errorf("%s: %+v, want every target Succeeded", name, st)
		}
		if notifier == "fail" && (st.Phase != v1alpha1.NotificationFailed || int(st.Failed) != want) {
			b.Errorf("%s: %+v, want every target Failed", name, st)
		}
		b.Logf("%-9s targets=%3d phase=%-9s creation→all results final: wall %s, last record %s after status.startedAt; status %d bytes (%d failures kept); records %d bytes; loadavg %s",
			name, want, st.Phase, wall.Round(time.Millisecond), last.Sub(*st.StartedAt).Round(time.Millisecond), size, len(st.Failures), recBytes, loadavg())
		b.ReportMetric(float64(wall.Milliseconds()), name+"-ms")
		b.ReportMetric(float64(size), name+"-status-bytes")
	}
	measure("sig-10", "hup", `bench: "yes", tier: ten`, 10)
	measure("sig-all", "hup", `bench: "yes"`, n)
	measure("ok-10", "ok", `bench: "yes", tier: ten`, 10)
	measure("ok-all", "ok", `bench: "yes"`, n)
	measure("fail-10", "fail", `bench: "yes", tier: ten`, 10)
	measure("fail-all", "fail", `bench: "yes"`, n)
}

func readStateB(b *testing.B, root, name string) *struct {
	Pod v1alpha1.Pod `json:"pod"`
} {
	data, err := os.ReadFile(filepath.Join(root, "pods", name, "state.json"))
	if err != nil {
		b.Fatal(err)
	}
	var st struct {
		Pod v1alpha1.Pod `json:"pod"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		b.Fatal(err)
	}
	return &st
}

// loadavg is the first three fields of /proc/loadavg: the machine is shared, and the figures
// mean little without it.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
