package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
)

// Files of a pod's failure evidence, in EvidenceDir/<pod name>/ (docs/conformance.md, "The
// bundle").
const (
	// EvidenceWhy says when and why the evidence was taken.
	EvidenceWhy = "why.txt"
	// EvidenceStatus is the raw output of `status POD -o json`.
	EvidenceStatus = "status.json"
	// EvidenceEvents is the raw output of `events POD`.
	EvidenceEvents = "events.jsonl"
	// EvidenceProbe holds the workloads' own reports as the harness stamped them, one JSON
	// object a line.
	EvidenceProbe = "probe-events.jsonl"
	// EvidenceRuntimeLogs is the output of the runtime's own log command (Config.RuntimeLogs).
	EvidenceRuntimeLogs = "runtime.log"
	// EvidenceErrors lists every command of the collection that failed, with its output.
	EvidenceErrors = "errors.txt"
)

// evidenceTimeout bounds the collection for one pod: a runtime that hangs must not hold the run.
const evidenceTimeout = 30 * time.Second

// KeepEvidence records what a vendor needs to diagnose a failure around pod p, at once, in
// Config.EvidenceDir/<pod name>/ (nothing when EvidenceDir is empty, and only the first time for a
// pod): why (the caller's words and the time), the pod's status and event history exactly as the
// runtime prints them, the workloads' own reports, the output of `logs POD C` for every container
// the status names (`logs-C.txt`, and `logs-C-previous.txt` after a restart), the status and
// results of every Notification of the run whose results name the pod
// (`notification-NAME-status.json`, `notification-NAME-results.json`), and, when the run has a
// RuntimeLogs command, its output for the pod. Everything goes through the command-line contract
// (or the harness's own records); a verb that fails is recorded in errors.txt, not returned. It
// returns an error only when the directory cannot be written.
func (f *Framework) KeepEvidence(ctx context.Context, p *Pod, why string) error {
	if f.cfg.EvidenceDir == "" || p == nil || !p.created {
		return nil
	}
	f.mu.Lock()
	if f.kept == nil {
		f.kept = map[string]bool{}
	}
	if f.kept[p.Name] {
		f.mu.Unlock()
		return nil
	}
	f.kept[p.Name] = true
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), evidenceTimeout)
	defer cancel()

	dir := filepath.Join(f.cfg.EvidenceDir, p.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("evidence of %s: %w", p.Name, err)
	}
	var errs []string
	var werr error
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil && werr == nil {
			werr = fmt.Errorf("evidence of %s: %w", p.Name, err)
		}
	}
	// verb runs a contract verb and keeps its stdout in name; a failure goes to errors.txt.
	verb := func(name string, args ...string) []byte {
		res, err := f.RT.Exec(ctx, args...)
		switch {
		case err != nil:
			errs = append(errs, err.Error())
			return nil
		case res.ExitCode != 0:
			errs = append(errs, res.String())
			return nil
		}
		write(name, res.Stdout)
		return res.Stdout
	}
	write(EvidenceWhy, fmt.Appendf(nil, "%s\npod %s (uid %s), evidence taken %s\n", why, p.Name, p.UID, time.Now().UTC().Format(time.RFC3339Nano)))
	status := verb(EvidenceStatus, "status", p.Name, "-o", "json")
	verb(EvidenceEvents, "events", p.Name)
	var probeLines bytes.Buffer
	for _, ev := range p.Probe.Events() {
		line, err := json.Marshal(ev)
		if err != nil {
			errs = append(errs, fmt.Sprintf("encode a probe event: %v", err))
			continue
		}
		probeLines.Write(append(line, '\n'))
	}
	write(EvidenceProbe, probeLines.Bytes())
	if status != nil {
		var st v1alpha1.PodStatus
		if err := json.Unmarshal(status, &st); err != nil {
			errs = append(errs, fmt.Sprintf("decode the status: %v", err))
		}
		for _, c := range containersOf(&st) {
			verb("logs-"+c.Name+".txt", "logs", p.Name, c.Name)
			if c.RestartCount > 0 {
				verb("logs-"+c.Name+"-previous.txt", "logs", p.Name, c.Name, "--previous")
			}
		}
	}
	for _, n := range f.notificationNames() {
		recs, err := f.RT.NotificationResults(ctx, n)
		if err != nil || !namesPod(recs, p.Name) {
			continue // gone, or not about this pod
		}
		verb("notification-"+n+"-status.json", "notification", "status", n)
		verb("notification-"+n+"-results.json", "notification", "results", n)
	}
	if len(f.cfg.RuntimeLogs) > 0 {
		argv := append(append([]string(nil), f.cfg.RuntimeLogs...), p.Name, p.UID)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.WaitDelay = 2 * time.Second
		out, err := cmd.CombinedOutput()
		write(EvidenceRuntimeLogs, out)
		if err != nil {
			errs = append(errs, fmt.Sprintf("$ %s\n%v", strings.Join(argv, " "), err))
		}
	}
	if len(errs) > 0 {
		write(EvidenceErrors, []byte(strings.Join(errs, "\n")+"\n"))
	}
	return werr
}

// KeptEvidence reports whether KeepEvidence recorded pod name.
func (f *Framework) KeptEvidence(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kept[name]
}

// containersOf lists every container a status names, of every kind.
func containersOf(st *v1alpha1.PodStatus) []v1alpha1.ContainerStatus {
	var out []v1alpha1.ContainerStatus
	for _, list := range [][]v1alpha1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.DeferContainerStatuses} {
		for _, c := range list {
			if c.Name != "" && !strings.ContainsAny(c.Name, "/\\") && c.Name != "." && c.Name != ".." {
				out = append(out, c)
			}
		}
	}
	return out
}

func namesPod(recs []v1alpha1.PodNotificationRecord, pod string) bool {
	for _, r := range recs {
		if r.Pod == pod {
			return true
		}
	}
	return false
}

// notificationNames lists the run's Notifications not deleted yet, sorted.
func (f *Framework) notificationNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.notifications))
	for n := range f.notifications {
		if n != "" && !strings.ContainsAny(n, "/\\") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
