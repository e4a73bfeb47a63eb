package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/moby/sys/mountinfo"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/reaper"
	"podspec.dev/podspec/reference/store"
)

// podspecSystem runs the pods through podspec's command line, on a state root of its own.
// It reads the store directly (as bench/runtime does) to wait for pods and Notifications, so that
// polling costs the machine no process starts while it measures.
type podspecSystem struct {
	bin, root, dir, layout string
	parallel               int
	pods                   []string
	uids                   []string
	rounds                 int
	statusBytes            int
	restarted              int // pods whose container was created again before it ran (a failed first creation)
	// turns is where each Notification's time went, by notifier (hup, ok), read from its pod
	// records before it is removed.
	turns map[string]turns
}

func newPodspec(ctx context.Context, bin, work, layout string, parallel int) (*podspecSystem, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no podspec binary: %w", err)
	}
	p := &podspecSystem{bin: bin, root: filepath.Join(work, "podspec-root"), dir: filepath.Join(work, "podspec"), layout: layout, parallel: parallel, turns: map[string]turns{}}
	return p, os.MkdirAll(p.dir, 0o700)
}

func (p *podspecSystem) name() string { return "podspec" }

func (p *podspecSystem) podspec(ctx context.Context, args ...string) (string, error) {
	return command(ctx, p.bin, append([]string{"--root", p.root}, args...)...)
}

func (p *podspecSystem) start(ctx context.Context, n int) error {
	p.rounds++
	p.pods = make([]string, n)
	for i := range p.pods {
		p.pods[i] = fmt.Sprintf("s%d-%04d", p.rounds, i)
	}
	manifest := filepath.Join(p.dir, fmt.Sprintf("pod-%d.yaml", p.rounds))
	// One manifest for all: each run names its pod with --name.
	if err := os.WriteFile(manifest, []byte(fmt.Sprintf(`apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: scale, labels: {bench: scale}}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: app
    image: "oci:%s"
    command: [sleep, "3600"]
    notifiers:
    - {name: hup, action: {signal: SIGHUP}}
    - {name: ok, timeoutSeconds: 600, action: {exec: {command: ["true"]}}}
`, p.layout)), 0o644); err != nil {
		return err
	}
	if err := fanOut(n, p.parallel, func(i int) error {
		_, err := p.podspec(ctx, "run", "--detach", "--name", p.pods[i], manifest)
		return err
	}); err != nil {
		return err
	}
	s, err := store.Open(p.root)
	if err != nil {
		return err
	}
	p.uids = make([]string, n)
	p.restarted = 0
	deadline := time.Now().Add(10 * time.Minute)
	for i, name := range p.pods {
		pod, err := s.Pod(name)
		if err != nil {
			return err
		}
		for {
			st, err := pod.ReadState()
			if err != nil {
				return err
			}
			p.uids[i] = st.Pod.Status.UID
			if cs := st.Pod.Status.ContainerStatuses; len(cs) == 1 && cs[0].Started {
				if cs[0].RestartCount > 0 {
					p.restarted++
				}
				break
			}
			if cs := st.Pod.Status.ContainerStatuses; len(cs) == 1 && cs[0].State.Terminated != nil {
				return fmt.Errorf("pod %s: its container ended before it ran: %+v", name, cs[0].State.Terminated)
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("pod %s not Started after 10 minutes", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

func (p *podspecSystem) perPod() ([]int, error) {
	s, err := store.Open(p.root)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, name := range p.pods {
		pod, err := s.Pod(name)
		if err != nil {
			return nil, err
		}
		st, err := pod.ReadState()
		if err != nil {
			return nil, err
		}
		pids = append(pids, st.Supervisor.PID)
	}
	return pids, nil
}

// queries times `status` of one pod (the first and the tenth) and `list` while every pod runs.
func (p *podspecSystem) queries() (statusOne, list, statusTenth time.Duration, err error) {
	ctx := context.Background()
	timeIt := func(k int, args ...string) (time.Duration, error) {
		var ds []time.Duration
		for i := 0; i < k; i++ {
			t := time.Now()
			if _, err := p.podspec(ctx, args...); err != nil {
				return 0, err
			}
			ds = append(ds, time.Since(t))
		}
		slices.Sort(ds)
		return ds[len(ds)/2], nil
	}
	if statusOne, err = timeIt(10, "status", p.pods[0]); err != nil {
		return
	}
	if list, err = timeIt(5, "list"); err != nil {
		return
	}
	statusTenth, err = timeIt(10, "status", p.pods[min(9, len(p.pods)-1)])
	return
}

func (p *podspecSystem) signal(ctx context.Context) error { return p.notify(ctx, "hup") }
func (p *podspecSystem) exec(ctx context.Context) error   { return p.notify(ctx, "ok") }

// notify creates a PreExistingPods Notification of notifier to every pod of this round and
// waits until its every result is final; every target must have Succeeded.
func (p *podspecSystem) notify(ctx context.Context, notifier string) error {
	name := fmt.Sprintf("scale-%d-%s", p.rounds, notifier)
	file := filepath.Join(p.dir, name+".yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`apiVersion: podspec.dev/v1alpha1
kind: Notification
metadata: {name: %s}
spec:
  notifier: %s
  selector: {matchLabels: {bench: scale}}
  targetPolicy: PreExistingPods
  parallelism: %d
`, name, notifier, p.parallel)), 0o644); err != nil {
		return err
	}
	if _, err := p.podspec(ctx, "notify", file); err != nil {
		return err
	}
	ns := &notify.Store{Dir: filepath.Join(p.root, notify.Dir)}
	deadline := time.Now().Add(20 * time.Minute)
	for {
		o, err := ns.Get(name)
		if err != nil {
			return err
		}
		if st := o.Notification.Status; st != nil && notify.Final(st.Phase) {
			if st.Phase != v1alpha1.NotificationSucceeded || int(st.Succeeded) != len(p.pods) {
				return fmt.Errorf("notification %s: %s, %d of %d succeeded", name, st.Phase, st.Succeeded, len(p.pods))
			}
			if p.turns[notifier], err = readTurns(o, ns.Path(name), p.parallel); err != nil {
				return err
			}
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("notification %s not final after 20 minutes", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, err := p.podspec(ctx, "notification", "status", name)
	if err != nil {
		return err
	}
	p.statusBytes = max(p.statusBytes, len(strings.TrimSpace(out)))
	_, err = p.podspec(ctx, "notification", "rm", name)
	return err
}

func (p *podspecSystem) remove(ctx context.Context) error {
	err := fanOut(len(p.pods), p.parallel, func(i int) error {
		_, err := p.podspec(ctx, "rm", "--force", p.pods[i])
		if err != nil && strings.Contains(err.Error(), "NotFound") {
			return nil
		}
		return err
	})
	return err
}

func (p *podspecSystem) leftovers() []string {
	var left []string
	if out, _ := reaper.Output(exec.Command("runc", "--root", filepath.Join(p.root, "runc"), "list", "-q")); len(strings.TrimSpace(string(out))) > 0 {
		left = append(left, fmt.Sprintf("%d runc containers", len(strings.Fields(string(out)))))
	}
	if mounts, _ := mountinfo.GetMounts(mountinfo.PrefixFilter(p.root)); len(mounts) > 0 {
		left = append(left, fmt.Sprintf("%d mounts under the root", len(mounts)))
	}
	if s, err := store.Open(p.root); err == nil {
		if names, _ := s.List(); len(names) > 0 {
			left = append(left, fmt.Sprintf("%d pod directories", len(names)))
		}
	}
	if pids := append(pidsOf("podspec-supervisor", p.root), pidsOf("podspec", "supervise --root "+p.root)...); len(pids) > 0 {
		left = append(left, fmt.Sprintf("%d supervisor processes", len(pids)))
	}
	cgroups := 0
	for _, uid := range p.uids {
		if f, err := oci.CgroupFile("/podspec/"+uid, "pids", ""); err == nil {
			if _, err := os.Stat(f); err == nil {
				cgroups++
			}
		}
	}
	if cgroups > 0 {
		left = append(left, fmt.Sprintf("%d pod cgroups", cgroups))
	}
	return left
}

func (p *podspecSystem) close() {
	// Whatever a failed measurement left: every pod of the root goes.
	if s, err := store.Open(p.root); err == nil {
		names, _ := s.List()
		fanOut(len(names), p.parallel, func(i int) error {
			p.podspec(context.Background(), "rm", "--force", names[i])
			return nil
		})
	}
}
