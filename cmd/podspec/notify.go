//go:build linux

package main

// Notification verbs (profile "notifier", docs/runtime-interface.md 4.12): notify, notification
// status|results|rm, and the hidden notification-runner that is one Notification's fan-out
// process (reference/notify.Runner), started detached by notify like supervise is by run.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/reference/notify"
	"podspec.dev/podspec/reference/store"
	"podspec.dev/podspec/reference/supervisor"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

func init() {
	register(newNotifyCmd)
	register(newNotificationCmd)
	register(newNotificationRunnerCmd)
}

func newNotifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify MANIFEST | notify POD NOTIFIER",
		Short: "Create a Notification (from a manifest, or for one pod and notifier) and start its delivery",
		Long: "Validates and records the Notification, fixes its target pods, starts its delivery in the\n" +
			"background and prints it (JSON). `notify POD NOTIFIER` creates a Notification named after the\n" +
			"pod with spec.pods=[POD]. Only notifiers the pods declare can run; use `notification status`\n" +
			"and `notification results` to follow it.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 && len(args) != 2 {
				return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("notify takes MANIFEST or POD NOTIFIER, got %d argument(s)", len(args))}
			}
			return nil
		},
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		var n *v1alpha1.Notification
		var err error
		if len(args) == 1 {
			n, err = f.readNotification(args[0])
		} else {
			n, err = f.shorthandNotification(args[0], args[1])
		}
		if err != nil {
			return err
		}
		s, err := f.store()
		if err != nil {
			return err
		}
		ns, err := notify.Open(s.Root)
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: err}
		}
		obj, err := ns.Create(n, s)
		if err != nil {
			return err
		}
		if err := f.spawnRunner(ns, obj.Notification.Metadata.Name); err != nil {
			return err
		}
		return cli.PrintJSON(obj.Notification)
	})
	return cmd
}

// readNotification validates a Notification manifest with the validator (schema and semantic
// checks) and returns it defaulted.
func (f *rtFlags) readNotification(file string) (*v1alpha1.Notification, error) {
	data, err := readManifest(file)
	if err != nil {
		return nil, err
	}
	return loadNotification(file, data)
}

func loadNotification(file string, data []byte) (*v1alpha1.Notification, error) {
	v, err := validator.New(validator.Options{Objects: true})
	if err != nil {
		return nil, err
	}
	results := v.Bytes(file, data)
	var errs []finding.Finding
	for _, r := range results {
		for _, fd := range r.Findings {
			if fd.Suppressed {
				continue
			}
			if fd.Severity == finding.Error {
				errs = append(errs, fd)
			} else {
				fmt.Fprintf(os.Stderr, "%s:%d:%d: warning %s: %s\n", fd.Pos.File, fd.Pos.Line, fd.Pos.Column, fd.Rule, fd.Message)
			}
		}
	}
	if len(errs) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the manifest is not valid (%d error(s))", file, len(errs)), findings: errs}
	}
	r, err := onlyDocument(file, results, v1alpha1.KindNotification)
	if err != nil {
		return nil, err
	}
	n := r.Notification
	if err := store.ValidName(n.Metadata.Name); err != nil {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: err, findings: []finding.Finding{{
			Rule: spec.ID001, Severity: spec.SeverityOf(spec.ID001), Engine: "runtime", Path: "metadata.name", Message: err.Error(), Pos: finding.Position{File: file}}}}
	}
	return n, nil
}

// shorthandNotification builds the Notification of `notify POD NOTIFIER`: NotFound unless the
// pod exists and one of its containers declares the notifier (the contract's rule for the
// shorthand); the object goes through the same validator as a manifest.
func (f *rtFlags) shorthandNotification(pod, notifier string) (*v1alpha1.Notification, error) {
	p, release, err := f.pod(pod)
	if err != nil {
		return nil, err
	}
	st, err := p.ReadState()
	release()
	if err != nil {
		return nil, &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("pod %q not found", pod)}
	}
	found := false
	spec := &st.Pod.Spec
	for _, cs := range [][]v1alpha1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, nf := range c.Notifiers {
				found = found || nf.Name == notifier
			}
		}
	}
	if !found {
		return nil, &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("pod %s declares no notifier %q", pod, notifier)}
	}
	n := &v1alpha1.Notification{
		TypeMeta: v1alpha1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindNotification},
		Metadata: v1alpha1.ObjectMeta{Name: autoName(pod, notifier)},
		Spec:     v1alpha1.NotificationSpec{Notifier: notifier, Pods: []string{pod}},
	}
	b, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	return loadNotification("notify "+pod+" "+notifier, b)
}

// autoName is <pod>-<notifier>-<6 hex digits>, cut and cleaned to a DNS label.
func autoName(pod, notifier string) string {
	clean := func(s string, max int) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('-')
			}
		}
		out := b.String()
		if len(out) > max {
			out = out[:max]
		}
		return strings.Trim(out, "-")
	}
	var rnd [3]byte
	rand.Read(rnd[:])
	parts := []string{}
	for _, p := range []string{clean(pod, 30), clean(notifier, 20), hex.EncodeToString(rnd[:])} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "-")
}

// spawnRunner starts the detached fan-out process of a Notification.
func (f *rtFlags) spawnRunner(ns *notify.Store, name string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the podspec binary: %w", err)
	}
	logf, err := os.OpenFile(filepath.Join(ns.Path(name), notify.RunnerLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start runner of %s: %w", name, err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	root, err := f.absRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "notification-runner", "--root", root, "--oci-runtime", f.ociRuntime, name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start runner of %s: %w", name, err)
	}
	go cmd.Wait()
	// The runner takes its lock at once; give it a moment so that a status read right after
	// creation does not start a second one.
	for i := 0; i < 100 && !notify.RunnerAlive(ns.Path(name)); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	return cmd.Process.Release()
}

// notification opens an existing Notification and makes sure it has a live runner while it
// is not final (a runner that died is replaced).
func (f *rtFlags) notification(name string) (*notify.Store, *notify.Object, error) {
	s, err := f.store()
	if err != nil {
		return nil, nil, err
	}
	ns, err := notify.Open(s.Root)
	if err != nil {
		return nil, nil, &rtError{code: runtimev1.CodeIO, err: err}
	}
	obj, err := ns.Get(name)
	if err != nil {
		if errors.Is(err, notify.ErrNotFound) {
			return nil, nil, &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("notification %q not found", name)}
		}
		return nil, nil, err
	}
	if st := obj.Notification.Status; (st == nil || !notify.Final(st.Phase)) && !notify.RunnerAlive(ns.Path(name)) {
		if err := f.spawnRunner(ns, name); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(os.Stderr, "podspec: the runner of notification %s had died; a new one took over\n", name)
	}
	return ns, obj, nil
}

func newNotificationCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notification",
		Short: "Inspect or delete Notifications (status, results, rm)",
		Args:  cli.Args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("notification needs a subcommand: status, results or rm")}
		},
	}
	status := &cobra.Command{Use: "status NAME", Short: "Print a Notification's bounded status (NotificationStatus JSON)", Args: cli.Args(1)}
	fs := addRuntimeFlags(status)
	status.RunE = fs.wrap(func(cmd *cobra.Command, args []string) error {
		_, obj, err := fs.notification(args[0])
		if err != nil {
			return err
		}
		st := obj.Notification.Status
		if st == nil {
			st = &v1alpha1.NotificationStatus{Phase: v1alpha1.NotificationPending}
		}
		return cli.PrintJSON(st)
	})
	results := &cobra.Command{Use: "results NAME", Short: "Print the per-pod records of a Notification (JSON array of PodNotificationRecord)", Args: cli.Args(1)}
	fr := addRuntimeFlags(results)
	results.RunE = fr.wrap(func(cmd *cobra.Command, args []string) error {
		ns, _, err := fr.notification(args[0])
		if err != nil {
			return err
		}
		recs, err := notify.Records(ns.Path(args[0]))
		if err != nil {
			if errors.Is(err, notify.ErrNotFound) {
				return &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("notification %q not found", args[0])}
			}
			return err
		}
		return cli.PrintJSON(recs)
	})
	rm := &cobra.Command{Use: "rm NAME", Short: "Delete a Notification (running deliveries finish; no new one starts)", Args: cli.Args(1)}
	fm := addRuntimeFlags(rm)
	rm.RunE = fm.wrap(func(cmd *cobra.Command, args []string) error {
		s, err := fm.store()
		if err != nil {
			return err
		}
		ns, err := notify.Open(s.Root)
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: err}
		}
		if err := ns.Remove(args[0]); err != nil {
			if errors.Is(err, notify.ErrNotFound) {
				return &rtError{code: runtimev1.CodeNotFound, err: fmt.Errorf("notification %q not found", args[0])}
			}
			return err
		}
		return nil
	})
	cmd.AddCommand(status, results, rm)
	return cmd
}

// newNotificationRunnerCmd is the hidden verb that is one Notification's fan-out process.
func newNotificationRunnerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "notification-runner NAME",
		Short:  "Deliver one Notification to its target pods (started by notify; not for direct use)",
		Hidden: true,
		Args:   cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		s, err := f.store()
		if err != nil {
			return err
		}
		ns, err := notify.Open(s.Root)
		if err != nil {
			return err
		}
		lg := log.New(os.Stderr, fmt.Sprintf("runner[%d] %s: ", os.Getpid(), args[0]), log.LstdFlags|log.Lmicroseconds|log.LUTC)
		r := &notify.Runner{Store: ns, Pods: s, Name: args[0], Logf: lg.Printf,
			Deliver: func(ctx context.Context, p *store.Pod, req *notify.DeliverRequest) error {
				if err := f.ensureSupervisor(ctx, p); err != nil {
					return err
				}
				payload, err := json.Marshal(req)
				if err != nil {
					return err
				}
				cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				_, err = supervisor.Call(cctx, p, &supervisor.Request{Op: supervisor.OpNotify, Payload: payload})
				return err
			}}
		lg.Printf("starting")
		err = r.Run(cmd.Context())
		if errors.Is(err, notify.ErrRunnerBusy) {
			lg.Printf("another runner holds the notification; exiting")
			return nil
		}
		if err != nil {
			lg.Printf("failed: %v", err)
			return err
		}
		lg.Printf("done")
		return nil
	})
	return cmd
}
