// Package preflight checks a runtime's command-line contract (docs/runtime-interface.md) before
// any lifecycle test: argument handling, exit statuses, the JSON error report, and the shapes of
// what the verbs print, checked against the JSON Schemas in schema/. A failure here is an adapter
// or contract bug, reported as such, not a lifecycle non-conformance.
//
// It drives the runtime only through framework.Runtime and creates at most two small pods, both
// removed before it returns.
package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/spec"
)

// Result is the outcome of one contract check.
type Result struct {
	// Name says what was checked, as a sentence.
	Name string `json:"name"`
	// Section is the section of docs/runtime-interface.md the check enforces.
	Section string `json:"section"`
	OK      bool   `json:"ok"`
	// Detail explains a failure (the command, its exit status and output).
	Detail string `json:"detail,omitempty"`
}

// Options configure a preflight.
type Options struct {
	// Framework is used for the lifecycle checks (image, probe); the runtime command comes from
	// it as well.
	Framework *fw.Framework
}

type checker struct {
	rt      *fw.Runtime
	f       *fw.Framework
	results []Result
}

func (c *checker) add(section, name string, err error) {
	r := Result{Name: name, Section: section, OK: err == nil}
	if err != nil {
		r.Detail = err.Error()
	}
	c.results = append(c.results, r)
}

// Run runs every check and returns the results in order. err is set only when the harness itself
// failed (a check failing is a Result with OK false).
func Run(ctx context.Context, opts Options) ([]Result, error) {
	if opts.Framework == nil {
		return nil, errors.New("preflight needs a framework")
	}
	c := &checker{rt: opts.Framework.RT, f: opts.Framework}
	c.checkVersion(ctx)
	c.checkUsage(ctx)
	c.checkNotFound(ctx)
	c.checkInvalidManifest(ctx)
	c.checkIO(ctx)
	c.checkList(ctx)
	if err := c.checkLifecycle(ctx); err != nil {
		return c.results, err
	}
	return c.results, nil
}

// expectError checks a failing command's exit status and its JSON error report.
func expectError(res *fw.Result, code runtimev1.ErrorCode) error {
	exit := code.ExitStatus()
	if res.ExitCode != exit {
		return fmt.Errorf("want exit %d (%s), got:\n%s", exit, code, res)
	}
	if res.Error == nil {
		return fmt.Errorf("want a JSON error report on stderr with --error-format json, got:\n%s", res)
	}
	if res.Error.Code != code {
		return fmt.Errorf("want error code %q, got %q:\n%s", code, res.Error.Code, res)
	}
	if strings.TrimSpace(res.Error.Message) == "" {
		return fmt.Errorf("the error report has no message:\n%s", res)
	}
	return nil
}

func (c *checker) exec(ctx context.Context, args ...string) (*fw.Result, error) {
	return c.rt.Exec(ctx, args...)
}

func (c *checker) checkVersion(ctx context.Context) {
	res, err := c.exec(ctx, "version")
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("version failed:\n%s", res)
	}
	if err == nil {
		err = checkVersionJSON(res.Stdout)
	}
	c.add("4.1", "version prints the contract version, the runtime's name and version and its profiles (core included)", err)
}

var contractVersion = regexp.MustCompile(`^1\.[0-9]+$`)

func checkVersionJSON(out []byte) error {
	var v struct {
		ContractVersion *string `json:"contractVersion"`
		Runtime         *struct {
			Name    *string `json:"name"`
			Version *string `json:"version"`
		} `json:"runtime"`
		Profiles         *[]runtimev1.Profile `json:"profiles"`
		StateDirectories *[]string            `json:"stateDirectories"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return fmt.Errorf("version output is not one JSON object: %w\n%s", err, out)
	}
	var problems []string
	if v.ContractVersion == nil || !contractVersion.MatchString(*v.ContractVersion) {
		problems = append(problems, "contractVersion must be a string 1.N")
	}
	if v.Runtime == nil || v.Runtime.Name == nil || *v.Runtime.Name == "" || v.Runtime.Version == nil || *v.Runtime.Version == "" {
		problems = append(problems, "runtime.name and runtime.version must be non-empty strings")
	}
	if v.Profiles == nil {
		problems = append(problems, "profiles must be an array")
	} else {
		core := false
		for _, p := range *v.Profiles {
			core = core || p == runtimev1.ProfileCore
			if !p.Known() {
				problems = append(problems, fmt.Sprintf("profile %q is not defined by contract %s", p, runtimev1.ContractVersion))
			}
		}
		if !core {
			problems = append(problems, "profiles must contain core")
		}
	}
	// stateDirectories (contract 1.2) is required of a runtime reporting 1.2 or later; what an
	// older runtime adds under that name is its own (section 2), and the suite does not read it.
	// Whether the directories exist and are private is the SEC-007 spec's, while a pod runs (an
	// empty root may have none yet).
	if v.ContractVersion != nil && (&runtimev1.Version{ContractVersion: *v.ContractVersion}).HasStateDirectories() {
		switch {
		case v.StateDirectories == nil || len(*v.StateDirectories) == 0:
			problems = append(problems, fmt.Sprintf("contract %s: stateDirectories must be a non-empty array of absolute paths (section 4.1)", *v.ContractVersion))
		default:
			for _, d := range *v.StateDirectories {
				if !filepath.IsAbs(d) || filepath.Clean(d) != d {
					problems = append(problems, fmt.Sprintf("stateDirectories: %q is not an absolute, clean path", d))
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s\n%s", strings.Join(problems, "; "), out)
	}
	return nil
}

func (c *checker) checkUsage(ctx context.Context) {
	cases := []struct {
		name string
		args []string
	}{
		{"an unknown verb is a usage error (exit 2, code Usage)", []string{"no-such-verb"}},
		{"a verb without its argument is a usage error", []string{"status"}},
		{"a verb with an extra argument is a usage error", []string{"status", "a", "b"}},
		{"an unknown flag is a usage error", []string{"list", "--no-such-flag"}},
		{"a malformed flag value is a usage error", []string{"wait", "some-pod", "--timeout", "soon"}},
	}
	for _, tc := range cases {
		res, err := c.exec(ctx, tc.args...)
		if err == nil {
			err = expectError(res, runtimev1.CodeUsage)
		}
		c.add("3", tc.name, err)
	}
}

// absentPod is a pod name no runtime has: a valid DNS label the harness never creates.
const absentPod = "podspec-preflight-absent"

func (c *checker) checkNotFound(ctx context.Context) {
	for _, args := range [][]string{
		{"status", absentPod, "-o", "json"},
		{"wait", absentPod, "--timeout", "1s"},
		{"events", absentPod},
		{"stop", absentPod},
		{"logs", absentPod, "app"},
		{"rm", absentPod},
		{"crash", absentPod}, // profile recovery; skipped below when it is not declared
	} {
		if args[0] == "crash" && !c.f.Version.Has(runtimev1.ProfileRecovery) {
			continue
		}
		res, err := c.exec(ctx, args...)
		if err == nil {
			err = expectError(res, runtimev1.CodeNotFound)
		}
		c.add("3", fmt.Sprintf("%s on an unknown pod is NotFound (exit 4)", args[0]), err)
	}
}

func (c *checker) writeManifest(name string, v any) (string, error) {
	dir := filepath.Join(c.f.Config().WorkDir, "preflight")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, data, 0o644)
}

func (c *checker) checkInvalidManifest(ctx context.Context) {
	// A dependency cycle: valid to the schema, refused by the semantic checks (DEP-003).
	pod := fw.NewPod().Main("a", fw.Exit(0), fw.DependsOn("b", "")).Main("b", fw.Exit(0), fw.DependsOn("a", "")).
		Build(fw.BuildEnv{Name: c.f.PodName("preflight-invalid"), Image: c.f.Image, ProbeDir: c.f.Config().WorkDir, RunID: c.f.RunID()})
	path, err := c.writeManifest("invalid.json", pod)
	if err != nil {
		c.add("3", "an invalid manifest is refused with InvalidManifest and findings", err)
		return
	}
	res, err := c.exec(ctx, "run", "--detach", "--name", pod.Metadata.Name, path)
	if err == nil {
		err = expectError(res, runtimev1.CodeInvalidManifest)
	}
	if err == nil {
		err = checkFindings(res)
	}
	if err == nil {
		if st, serr := c.exec(ctx, "status", pod.Metadata.Name, "-o", "json"); serr == nil && st.ExitCode != runtimev1.ExitNotFound {
			err = fmt.Errorf("the refused pod exists afterwards:\n%s", st)
			_, _ = c.rt.Remove(ctx, pod.Metadata.Name, true)
		}
	}
	c.add("3, 4.2", "an invalid manifest is refused with exit 1, code InvalidManifest and the validator's findings, and nothing is created", err)
}

func checkFindings(res *fw.Result) error {
	if len(res.Error.Findings) == 0 {
		return fmt.Errorf("InvalidManifest without findings:\n%s", res)
	}
	found := false
	for _, f := range res.Error.Findings {
		if f.Rule == "" || f.Message == "" || (f.Severity != "error" && f.Severity != "warning") {
			return fmt.Errorf("finding %+v lacks rule, severity or message:\n%s", f, res)
		}
		found = found || f.Rule == spec.DEP003
	}
	if !found {
		return fmt.Errorf("the findings do not report the dependency cycle (%s):\n%s", spec.DEP003, res)
	}
	return nil
}

func (c *checker) checkIO(ctx context.Context) {
	res, err := c.exec(ctx, "run", "--detach", "--name", c.f.PodName("preflight-io"), filepath.Join(c.f.Config().WorkDir, "no-such-manifest.yaml"))
	if err == nil {
		err = expectError(res, runtimev1.CodeIO)
	}
	c.add("3", "a manifest file that cannot be read is an IO error (exit 3)", err)
}

func (c *checker) checkList(ctx context.Context) {
	res, err := c.exec(ctx, "list")
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("list failed:\n%s", res)
	}
	if err == nil {
		var entries []map[string]any
		if jerr := json.Unmarshal(res.Stdout, &entries); jerr != nil {
			err = fmt.Errorf("list must print a JSON array: %w\n%s", jerr, res)
		}
		for _, e := range entries {
			for _, k := range []string{"name", "uid", "phase", "createdAt"} {
				if _, ok := e[k]; !ok && err == nil {
					err = fmt.Errorf("list entry %v lacks %q", e, k)
				}
			}
		}
	}
	c.add("4.8", "list prints a JSON array of {name, uid, phase, createdAt}", err)
}

// checkLifecycle runs a looping pod and checks the verbs on it: run output, status against the
// PodStatus schema, wait timeout, rm refusal, duplicate names, stop, events, wait, rm.
func (c *checker) checkLifecycle(ctx context.Context) error {
	p, err := c.f.Start(ctx, "preflight", fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Loop()))
	if p != nil {
		defer func() { _ = p.Cleanup(context.WithoutCancel(ctx)) }()
	}
	c.add("4.2", "run --detach of a valid pod prints {name, uid} and exits 0", err)
	if err != nil {
		return nil
	}
	if p.UID == "" {
		c.add("4.2", "run --detach prints a non-empty uid", errors.New("empty uid"))
	}
	c.add("4.3", "status prints a PodStatus that validates against schema PodStatus", c.statusValidates(ctx, p.Name))

	res, err := c.exec(ctx, "wait", p.Name, "--timeout", "100ms")
	if err == nil {
		err = expectError(res, runtimev1.CodeTimeout)
	}
	c.add("4.4", "wait --timeout on a running pod is Timeout (exit 7)", err)

	res, err = c.exec(ctx, "rm", p.Name)
	if err == nil {
		err = expectError(res, runtimev1.CodeConflict)
	}
	c.add("4.9", "rm of a pod that is not terminal is Conflict (exit 5)", err)

	res, err = c.exec(ctx, "run", "--detach", "--name", p.Name, p.Manifest)
	if err == nil {
		err = expectError(res, runtimev1.CodeConflict)
	}
	c.add("4.2", "run with the name of an existing pod is Conflict (exit 5)", err)

	_, err = p.WaitFor(ctx, "app to start", c.f.Tolerances().PodTimeout.Value, fw.AllStarted("app"))
	if err == nil && c.f.Version.Has(runtimev1.ProfileRecovery) {
		c.add("4.13", "crash of a running pod exits 0; the next status succeeds and validates against schema PodStatus", c.crashRunning(ctx, p))
	}
	if err == nil {
		err = p.Stop(ctx, nil, false)
	}
	c.add("4.6", "stop returns 0 once the request is recorded", err)
	if err == nil {
		c.add("4.6", "after stop returns, status shows Terminating=True or a terminal phase", c.terminatingOrTerminal(ctx, p.Name))
	}
	st, res, err := c.rt.Wait(ctx, p.Name, c.f.Tolerances().PodTimeout.Value)
	if err == nil && st.Phase != v1alpha1.PodSucceeded && st.Phase != v1alpha1.PodFailed {
		err = fmt.Errorf("wait returned a non-terminal phase %q:\n%s", st.Phase, res)
	}
	c.add("4.4", "wait prints the final PodStatus once the pod is terminal", err)
	c.add("4.3", "the final status validates against schema PodStatus", c.statusValidates(ctx, p.Name))
	c.add("5.1", "every event printed by events validates against schema Event", c.eventsValidate(ctx, p.Name))
	c.add("5.3", "events are JSON lines, seq 1, 2, 3, ... without gaps, time non-decreasing, PodCreated first and PodFinished last", c.eventsWellFormed(ctx, p.Name))
	c.add("4.5", "events --follow of a finished pod prints the history and exits 0", c.followEnds(ctx, p.Name))
	res, err = c.exec(ctx, "logs", p.Name, "app")
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("logs failed:\n%s", res)
	}
	c.add("4.7", "logs of an exited container is readable", err)
	res, err = c.exec(ctx, "stop", p.Name)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("stop of a terminal pod must succeed:\n%s", res)
	}
	c.add("4.6", "stop of a terminal pod succeeds", err)
	if c.f.Version.Has(runtimev1.ProfileRecovery) {
		c.add("4.13", "crash of a terminal pod exits 0 and changes nothing (status and events)", c.crashTerminal(ctx, p.Name))
	}
	res, err = c.rt.Remove(ctx, p.Name, false)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("rm of a terminal pod failed:\n%s", res)
	}
	if err == nil {
		res, err = c.exec(ctx, "status", p.Name, "-o", "json")
		if err == nil {
			err = expectError(res, runtimev1.CodeNotFound)
		}
	}
	c.add("4.9", "rm removes a terminal pod; status afterwards is NotFound", err)
	return nil
}

func (c *checker) statusValidates(ctx context.Context, pod string) error {
	res, err := c.exec(ctx, "status", pod, "-o", "json")
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("status failed:\n%s", res)
	}
	if err := ValidateStatus(res.Stdout); err != nil {
		return fmt.Errorf("%w\n%s", err, res)
	}
	return nil
}

// ValidateStatus checks that out, what `status -o json` printed, is one PodStatus: every field
// the schema defines valid, at every level; fields of the runtime's own are allowed (section 2:
// a runtime MAY add fields to any object).
func ValidateStatus(out []byte) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("status output is not JSON: %w", err)
	}
	if dec.More() {
		return errors.New("status printed more than one JSON value")
	}
	if errs := schema.ValidateOpen("PodStatus", v); len(errs) > 0 {
		return fmt.Errorf("status does not validate against schema PodStatus: %v", errs)
	}
	return nil
}

func (c *checker) terminatingOrTerminal(ctx context.Context, pod string) error {
	st, err := c.rt.Status(ctx, pod)
	if err != nil {
		return err
	}
	if st.Phase == v1alpha1.PodSucceeded || st.Phase == v1alpha1.PodFailed {
		return nil
	}
	for _, cond := range st.Conditions {
		if cond.Type == v1alpha1.PodTerminating && cond.Status == v1alpha1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("neither Terminating=True nor terminal right after stop: %+v", st)
}

func (c *checker) eventsValidate(ctx context.Context, pod string) error {
	res, err := c.exec(ctx, "events", pod)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("events failed:\n%s", res)
	}
	return ValidateEvents(res.Stdout)
}

// ValidateEvents checks that every line of an `events` output is one JSON object that validates
// against the schema Event (section 5.1: object shapes are the JSON Schemas), fields of the
// runtime's own allowed in every object (section 2). Empty lines are ignored; the error names
// each offending line and what is wrong with it.
func ValidateEvents(out []byte) error {
	var problems []string
	for i, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil || dec.More() {
			if err == nil {
				err = errors.New("more than one JSON value on the line")
			}
			problems = append(problems, fmt.Sprintf("line %d is not one JSON value (%v): %s", i+1, err, line))
			continue
		}
		if errs := schema.ValidateOpen("Event", v); len(errs) > 0 {
			problems = append(problems, fmt.Sprintf("line %d does not validate against schema Event: %v: %s", i+1, errs, line))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func (c *checker) eventsWellFormed(ctx context.Context, pod string) error {
	evs, err := c.rt.Events(ctx, pod)
	if err != nil {
		return err
	}
	return CheckEventStream(evs)
}

// CheckEventStream checks the stream-level guarantees of a finished pod's events (section 5.3).
func CheckEventStream(evs []runtimev1.Event) error {
	if len(evs) == 0 {
		return errors.New("no events")
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			return fmt.Errorf("event %d has seq %d, want %d", i, ev.Seq, i+1)
		}
		if ev.Time.IsZero() || ev.Type == "" || ev.Pod == "" || ev.PodUID == "" {
			return fmt.Errorf("event seq %d lacks time, type, pod or podUID: %+v", ev.Seq, ev)
		}
		if i > 0 && ev.Time.Before(evs[i-1].Time) {
			return fmt.Errorf("event seq %d is earlier than seq %d", ev.Seq, evs[i-1].Seq)
		}
	}
	if evs[0].Type != runtimev1.EventPodCreated {
		return fmt.Errorf("first event is %s, want PodCreated", evs[0].Type)
	}
	if last := evs[len(evs)-1]; last.Type != runtimev1.EventPodFinished {
		return fmt.Errorf("last event is %s, want PodFinished", last.Type)
	}
	return nil
}

func (c *checker) followEnds(ctx context.Context, pod string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := c.exec(ctx, "events", pod, "--follow")
	if err != nil {
		return fmt.Errorf("events --follow did not end after PodFinished: %w", err)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("events --follow failed:\n%s", res)
	}
	if err := ValidateEvents(res.Stdout); err != nil {
		return err
	}
	evs, err := fw.ParseEvents(res.Stdout)
	if err != nil {
		return err
	}
	return CheckEventStream(evs)
}

// crashRunning checks `crash` on a running pod (profile recovery): exit 0, and the next verb
// works (the runtime detects the loss and adopts the pod, SUP-003).
func (c *checker) crashRunning(ctx context.Context, p *fw.Pod) error {
	if _, err := p.Crash(ctx); err != nil {
		return err
	}
	_, _, err := p.ValidStatus(ctx)
	return err
}

// crashTerminal checks that `crash` of a terminal pod exits 0 and is a no-op.
func (c *checker) crashTerminal(ctx context.Context, pod string) error {
	before, err := c.exec(ctx, "status", pod, "-o", "json")
	if err != nil {
		return err
	}
	evs, err := c.rt.Events(ctx, pod)
	if err != nil {
		return err
	}
	res, err := c.exec(ctx, "crash", pod)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("crash of a terminal pod must succeed:\n%s", res)
	}
	after, err := c.exec(ctx, "status", pod, "-o", "json")
	if err != nil {
		return err
	}
	if string(after.Stdout) != string(before.Stdout) {
		return fmt.Errorf("crash changed the status of a terminal pod:\nbefore: %s\nafter:  %s", before.Stdout, after.Stdout)
	}
	if evs2, err := c.rt.Events(ctx, pod); err != nil || len(evs2) != len(evs) {
		return fmt.Errorf("crash changed the events of a terminal pod (%d before, %d after, %v)", len(evs), len(evs2), err)
	}
	return nil
}
