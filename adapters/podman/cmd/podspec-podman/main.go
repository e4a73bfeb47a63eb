// Command podspec-podman is the podspec runtime contract (docs/runtime-interface.md) on
// rootful podman, through package podspec.dev/podspec/adapters/podman:
//
//	podspec-podman [--root DIR] [--oci-runtime PATH] [--error-format text|json] VERB [ARGS]
//
// Verbs: version, run, status, wait, events, stop, logs, list, rm (profile core), update
// (profile update).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/adapters/podman"
	rtv1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/validator"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// verbs: each verb's flags (true: takes a value) and its number of positional arguments.
var verbs = map[string]struct {
	flags map[string]bool
	args  int
}{
	"version": {map[string]bool{}, 0},
	"run":     {map[string]bool{"detach": false, "name": true}, 1},
	"status":  {map[string]bool{"o": true, "output": true}, 1},
	"wait":    {map[string]bool{"timeout": true}, 1},
	"events":  {map[string]bool{"follow": false}, 1},
	"stop":    {map[string]bool{"grace-period": true, "force": false}, 1},
	"logs":    {map[string]bool{"previous": false}, 2},
	"list":    {map[string]bool{}, 0},
	"rm":      {map[string]bool{"force": false}, 1},
	"update":  {map[string]bool{}, 2},
}

var globals = map[string]bool{"root": true, "oci-runtime": true, "error-format": true}

type invocation struct {
	global map[string]string
	verb   string
	flags  map[string]string
	args   []string
}

// parse splits the command line; flags may come before or after positional arguments, in
// --name VALUE or --name=VALUE form; a global flag given twice takes its last value.
func parse(argv []string) (*invocation, error) {
	inv := &invocation{global: map[string]string{}, flags: map[string]string{}}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if inv.verb == "" {
				if _, ok := verbs[a]; !ok {
					return inv, fmt.Errorf("unknown verb %q", a)
				}
				inv.verb = a
			} else {
				inv.args = append(inv.args, a)
			}
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		takes, isGlobal := globals[name]
		target := inv.global
		if !isGlobal {
			if inv.verb == "" {
				return inv, fmt.Errorf("unknown flag %s", a)
			}
			var ok bool
			takes, ok = verbs[inv.verb].flags[name]
			if !ok {
				return inv, fmt.Errorf("unknown flag %s for %s", a, inv.verb)
			}
			target = inv.flags
		}
		if takes && !hasValue {
			if i+1 >= len(argv) {
				return inv, fmt.Errorf("flag %s needs a value", a)
			}
			i++
			value = argv[i]
		} else if !takes && hasValue {
			return inv, fmt.Errorf("flag %s takes no value", a)
		}
		target[name] = value
	}
	if inv.verb == "" {
		return inv, errors.New("no verb")
	}
	if n := verbs[inv.verb].args; len(inv.args) != n {
		return inv, fmt.Errorf("%s takes %d argument(s), got %d", inv.verb, n, len(inv.args))
	}
	return inv, nil
}

func run(argv []string) int {
	inv, err := parse(argv)
	format := "text"
	if inv != nil && inv.global["error-format"] != "" {
		format = inv.global["error-format"]
	}
	if err != nil {
		return report(format, &podman.Error{Code: rtv1.CodeUsage, Message: err.Error()})
	}
	root := inv.global["root"]
	if root == "" {
		root = os.Getenv("PODSPEC_ROOT")
	}
	if root == "" {
		root = "/var/lib/podspec-podman"
	}
	oci := inv.global["oci-runtime"]
	if oci == "" {
		oci = os.Getenv("PODSPEC_OCI_RUNTIME")
	}
	if oci == "" {
		oci = "runc" // the contract's default; podman's own (crun) refuses hybrid cgroups
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	a := &podman.Adapter{Root: root, OCIRuntime: oci}
	if inv.verb != "version" {
		if err := a.Open(); err != nil {
			return report(format, err)
		}
	}
	if err := do(context.Background(), a, inv); err != nil {
		return report(format, err)
	}
	return 0
}

func printJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(b))
	return err
}

func do(ctx context.Context, a *podman.Adapter, inv *invocation) error {
	arg := func(i int) string { return inv.args[i] }
	switch inv.verb {
	case "version":
		v, err := a.Version(ctx)
		if err != nil {
			return err
		}
		return printJSON(v)
	case "run":
		_, detach := inv.flags["detach"]
		pod, base, err := load(arg(0))
		if err == nil {
			if n := inv.flags["name"]; n != "" {
				pod.Metadata.Name = n
			}
			_, err = a.Create(ctx, pod, base)
		}
		if err != nil {
			if !detach {
				report(inv.global["error-format"], err)
				os.Exit(125) // the pod could not be created
			}
			return err
		}
		if detach {
			uid, _ := a.UID(pod.Metadata.Name)
			return printJSON(map[string]string{"name": pod.Metadata.Name, "uid": uid})
		}
		return foreground(ctx, a, pod.Metadata.Name)
	case "status":
		if o := inv.flags["o"] + inv.flags["output"]; o != "" && o != "json" {
			return &podman.Error{Code: rtv1.CodeUsage, Message: "status prints json only (-o json)"}
		}
		st, err := a.Status(ctx, arg(0))
		if err != nil {
			return err
		}
		return printJSON(st)
	case "wait":
		var timeout time.Duration
		if t, ok := inv.flags["timeout"]; ok {
			d, err := time.ParseDuration(t)
			if err != nil || d < 0 {
				return &podman.Error{Code: rtv1.CodeUsage, Message: fmt.Sprintf("--timeout %q: not a duration", t)}
			}
			timeout = d
		}
		st, err := a.Wait(ctx, arg(0), timeout)
		if err != nil {
			return err
		}
		return printJSON(st)
	case "events":
		_, follow := inv.flags["follow"]
		printed := 0
		for {
			evs, finished, err := a.Events(ctx, arg(0))
			if err != nil {
				return err
			}
			for _, e := range evs[min(printed, len(evs)):] {
				if err := printJSON(e); err != nil {
					return err
				}
			}
			printed = max(printed, len(evs))
			if !follow || finished {
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(200 * time.Millisecond):
			}
		}
	case "stop":
		var grace *int64
		if g, ok := inv.flags["grace-period"]; ok {
			n, err := strconv.ParseInt(g, 10, 64)
			if err != nil || n < 0 {
				return &podman.Error{Code: rtv1.CodeUsage, Message: fmt.Sprintf("--grace-period %q: want seconds >= 0", g)}
			}
			grace = &n
		}
		_, force := inv.flags["force"]
		return a.Stop(ctx, arg(0), grace, force)
	case "logs":
		_, prev := inv.flags["previous"]
		b, err := a.Logs(ctx, arg(0), arg(1), prev)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(b)
		return err
	case "list":
		l, err := a.List(ctx)
		if err != nil {
			return err
		}
		return printJSON(l)
	case "rm":
		_, force := inv.flags["force"]
		return a.Remove(ctx, arg(0), force)
	case "update":
		old, err := a.Manifest(arg(0))
		if err != nil {
			return err
		}
		pod, err := loadUpdate(arg(1), old)
		if err != nil {
			return err
		}
		st, err := a.Update(ctx, pod)
		if err != nil {
			return err
		}
		return printJSON(st)
	}
	return &podman.Error{Code: rtv1.CodeUsage, Message: "unknown verb " + inv.verb}
}

// foreground follows the pod's events on stderr (an interrupt stops it gracefully, a second
// one forcibly) and exits with the pod's exit code once it is terminal.
func foreground(ctx context.Context, a *podman.Adapter, name string) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	printed, interrupts := 0, 0
	for {
		evs, finished, err := a.Events(context.WithoutCancel(ctx), name)
		if err != nil {
			return err
		}
		for _, e := range evs[min(printed, len(evs)):] {
			line := e.Time.Local().Format("15:04:05.000") + " " + string(e.Type)
			if e.Container != "" {
				line += " " + e.ContainerKind + "/" + e.Container
			}
			if e.ExitCode != nil {
				line += fmt.Sprintf(" exitCode=%d", *e.ExitCode)
			}
			if e.Reason != "" {
				line += " reason=" + e.Reason
			}
			fmt.Fprintln(os.Stderr, line)
		}
		printed = max(printed, len(evs))
		if finished {
			st, err := a.Status(context.WithoutCancel(ctx), name)
			if err != nil {
				return err
			}
			if st.ExitCode != nil && *st.ExitCode != 0 {
				os.Exit(int(*st.ExitCode))
			}
			return nil
		}
		select {
		case <-sigs:
			interrupts++
			if err := a.Stop(context.WithoutCancel(ctx), name, nil, interrupts > 1); err != nil {
				return err
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// load reads and validates the manifest exactly as `podspec validate` does.
func load(file string) (*v1alpha1.Pod, string, error) {
	return loadWith(file, func(v *validator.Validator, data []byte) ([]*validator.Result, error) {
		return v.Bytes(file, data), nil
	})
}

// loadUpdate reads and validates the manifest of an update of old exactly as `podspec validate
// --update-from` does (the pod's recorded manifest stands in for the old file): on its own, and
// its changes against old (UPD findings).
func loadUpdate(file string, old *v1alpha1.Pod) (*v1alpha1.Pod, error) {
	oldData, err := json.Marshal(old)
	if err != nil {
		return nil, err
	}
	pod, _, err := loadWith(file, func(v *validator.Validator, data []byte) ([]*validator.Result, error) {
		rs, err := v.UpdateBytes("recorded manifest of pod "+old.Metadata.Name, oldData, file, data)
		if err != nil {
			return nil, &podman.Error{Code: rtv1.CodeIO, Message: err.Error()}
		}
		return rs, nil
	})
	return pod, err
}

// loadWith reads the manifest, refuses it when validate's results have an error finding, and
// decodes its one Pod, defaulted; it also returns the directory relative image layouts are in.
func loadWith(file string, validate func(*validator.Validator, []byte) ([]*validator.Result, error)) (*v1alpha1.Pod, string, error) {
	var data []byte
	var err error
	base := "."
	if file == "-" {
		data, err = validator.ReadStream(os.Stdin, "-", manifest.DefaultLimits().MaxBytes)
	} else {
		base = filepath.Dir(file)
		data, err = validator.ReadFile(file, manifest.DefaultLimits().MaxBytes)
	}
	if err != nil {
		return nil, "", &podman.Error{Code: rtv1.CodeIO, Message: err.Error()}
	}
	v, err := validator.New(validator.Options{})
	if err != nil {
		return nil, "", err
	}
	results, err := validate(v, data)
	if err != nil {
		return nil, "", err
	}
	var errs []finding.Finding
	for _, r := range results {
		for _, fd := range r.Findings {
			if !fd.Suppressed && fd.Severity == finding.Error {
				errs = append(errs, fd)
			}
		}
	}
	if len(errs) > 0 {
		return nil, "", &podman.Error{Code: rtv1.CodeInvalidManifest, Message: fmt.Sprintf("%s: the manifest is not valid (%d error(s))", file, len(errs)), Findings: errs}
	}
	docs, _ := manifest.Decode(file, data, manifest.DefaultLimits())
	if len(docs) != 1 || docs[0].Kind != v1alpha1.KindPod {
		return nil, "", &podman.Error{Code: rtv1.CodeInvalidManifest, Message: file + ": want exactly one Pod document", Findings: []finding.Finding{}}
	}
	pod, err := docs[0].Pod()
	if err != nil {
		return nil, "", &podman.Error{Code: rtv1.CodeInvalidManifest, Message: err.Error(), Findings: []finding.Finding{}}
	}
	pod.SetDefaults()
	return pod, base, nil
}

// report prints the error report and returns the exit status.
func report(format string, err error) int {
	var pe *podman.Error
	if !errors.As(err, &pe) {
		pe = &podman.Error{Code: rtv1.CodeFailed, Message: err.Error()}
	}
	if format == "json" {
		fmt.Fprintln(os.Stderr, string(rtv1.ErrorReport{Code: pe.Code, Message: pe.Message, Findings: pe.Findings}.Line()))
	} else {
		fmt.Fprintf(os.Stderr, "podspec-podman: %s: %s\n", pe.Code, pe.Message)
	}
	return pe.Code.ExitStatus()
}
