package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
	"podspec.dev/podspec/validator"
)

func init() { register(newConvertCmd) }

// Directions of podspec convert.
const (
	toPodspec    = "podspec"
	toKubernetes = "kubernetes"
)

func newConvertCmd() *cobra.Command {
	var to, format string
	var strict bool
	cmd := &cobra.Command{
		Use:   "convert [--to podspec|kubernetes] FILE | -",
		Short: "Convert pods between Kubernetes objects and podspec Pods",
		Long: `Convert each pod of FILE to the other API: a Kubernetes v1 Pod, or the pod template of a
Deployment, StatefulSet, DaemonSet, ReplicaSet, Job or CronJob (also inside a v1 List), becomes a
podspec.dev/v1alpha1 Pod; a podspec Pod becomes a Kubernetes v1 Pod. Other Kubernetes objects are
passed over. The documents are validated first (as podspec validate does); one with an error is
not converted.

Every field that cannot be carried over is reported on standard error at its file:line:col
(` + spec.KUBE017 + ` for a Kubernetes field podspec does not model, ` + spec.KUBE018 + ` for a podspec field
Kubernetes has no field for); nothing is dropped silently. The converted documents go to standard output.
Exit status: 0 converted, 1 an invalid document (or, with --strict, anything not carried over),
2 usage error, 3 I/O error. See docs/kubernetes.md.`,
		Args: cli.Args(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to != "" && to != toPodspec && to != toKubernetes {
				return usageErr("--to must be %s or %s, not %q", toPodspec, toKubernetes, to)
			}
			if format != "yaml" && format != "json" {
				return usageErr("--format must be yaml or json, not %q", format)
			}
			return runConvert(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], to, format, strict)
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "convert only to this API: podspec or kubernetes (default: each document to the other one)")
	cmd.Flags().StringVarP(&format, "format", "o", "yaml", "output format: yaml or json")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 when anything could not be carried over")
	return cmd
}

func runConvert(stdout, stderr io.Writer, file, to, format string, strict bool) error {
	data, err := readManifest(file)
	if err != nil {
		return convertReadError(err)
	}
	if file == "-" {
		file = validator.StdinName
	}
	v, err := validator.New(validator.Options{})
	if err != nil {
		return err
	}
	invalid := 0
	for _, r := range v.Bytes(file, data) {
		for _, f := range r.Findings {
			if !f.Suppressed && f.Severity == finding.Error {
				printFinding(stderr, f)
				invalid++
			}
		}
	}
	if invalid > 0 {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("%s: %d error(s): nothing converted", file, invalid)}
	}
	docs, _ := manifest.Decode(file, data, manifest.DefaultLimits())
	var out []any
	lost := 0
	for _, d := range docs {
		objs, errs, err := convertDocument(d, to)
		if err != nil {
			return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("%s: document %d: %w", file, d.Index, err)}
		}
		lost += printNotCarried(stderr, d, errs)
		out = append(out, objs...)
	}
	if err := writeConverted(stdout, out, format); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write: %w", err)}
	}
	if strict && lost > 0 {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("%s: %d field(s) not carried over", file, lost)}
	}
	return nil
}

// convertDocument converts one valid document; a document of neither API yields nothing.
func convertDocument(d *manifest.Document, to string) ([]any, field.ErrorList, error) {
	switch kubernetes.Classify(d.APIVersion, d.Kind) {
	case kubernetes.Modelled:
		if to == toKubernetes {
			return nil, nil, fmt.Errorf("%s %s is already a Kubernetes object", d.APIVersion, d.Kind)
		}
		pods, errs := kubernetes.ToPodspec(d.Value)
		var out []any
		for _, p := range pods {
			out = append(out, p.Pod)
		}
		return out, errs, nil
	case kubernetes.OtherKubernetes:
		return nil, nil, nil
	}
	if d.Kind != "Pod" {
		return nil, nil, fmt.Errorf("a %s has no Kubernetes counterpart; only Pods convert", d.Kind)
	}
	if to == toPodspec {
		return nil, nil, errors.New("already a podspec Pod")
	}
	p, err := d.Pod()
	if err != nil {
		return nil, nil, err
	}
	kp, errs := kubernetes.FromPodspec(p)
	return []any{kp}, errs, nil
}

func positioned(d *manifest.Document, e *field.Error) finding.Finding {
	var tokens []string
	if e.Field != nil {
		tokens = e.Field.Tokens()
	}
	line, col := d.Position(tokens, e.OnKey)
	return finding.Finding{Rule: e.Rule, Severity: e.Severity(), Path: e.Field.String(), Message: e.Detail,
		Pos: finding.Position{File: d.File, Line: line, Column: col}, Document: d.Index}
}

// printNotCarried prints a conversion's findings in position order and returns how many.
func printNotCarried(w io.Writer, d *manifest.Document, errs field.ErrorList) int {
	fs := make([]finding.Finding, 0, len(errs))
	for _, e := range errs {
		fs = append(fs, positioned(d, e))
	}
	finding.Sort(fs)
	for _, f := range fs {
		fmt.Fprintf(w, "%s:%d:%d: %s: %s: %s\n", f.Pos.File, f.Pos.Line, f.Pos.Column, f.Rule, f.Path, f.Message)
	}
	return len(fs)
}

func printFinding(w io.Writer, f finding.Finding) {
	fmt.Fprintf(w, "%s:%d:%d: %s %s: %s: %s\n", f.Pos.File, f.Pos.Line, f.Pos.Column, f.Severity, f.Rule, f.Path, f.Message)
}

// writeConverted writes the objects as a YAML stream or, for json, one object per line.
func writeConverted(w io.Writer, objs []any, format string) error {
	var b bytes.Buffer
	for i, o := range objs {
		j, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if format == "json" {
			b.Write(j)
			b.WriteByte('\n')
			continue
		}
		y, err := yaml.JSONToYAML(j)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func convertReadError(err error) error {
	var re *rtError
	if errors.As(err, &re) && re.code == runtimev1.CodeIO {
		return &cli.ExitError{Code: cli.ExitIO, Err: err}
	}
	return &cli.ExitError{Code: cli.ExitFindings, Err: err}
}

// kubernetesPod converts the one pod a valid Kubernetes document carries for podspec run, and
// validates it as a podspec Pod; every finding is positioned in the Kubernetes document. What is
// not carried over (KUBE-017) is printed to stderr. An image reference podspec cannot run (a
// registry reference rather than oci:PATH) is IMG-001 at the container's image field.
func kubernetesPod(stderr io.Writer, d *manifest.Document) (*v1alpha1.Pod, error) {
	pods, errs := kubernetes.ToPodspec(d.Value)
	var refusals []finding.Finding
	for _, e := range errs {
		if e.Rule != spec.KUBE017 {
			refusals = append(refusals, positioned(d, e))
		}
	}
	if len(refusals) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the Kubernetes object is not valid", d.File), findings: refusals}
	}
	if len(pods) != 1 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: want exactly one pod, found %d", d.File, len(pods))}
	}
	printNotCarried(stderr, d, errs)
	pod := pods[0].Pod
	pod.SetDefaults()
	at := pods[0].From.Template().PodPath
	var invalid []finding.Finding
	for _, e := range validation.ValidatePod(pod) {
		if e.Severity() != spec.Error {
			continue
		}
		tokens := append(at.Tokens(), e.Field.Tokens()...)
		line, col := d.Position(tokens, e.OnKey)
		invalid = append(invalid, finding.Finding{Rule: e.Rule, Severity: e.Severity(), Engine: "convert", Path: e.Field.String(),
			Message: e.Field.String() + ": " + e.Message(), Pos: finding.Position{File: d.File, Line: line, Column: col}, Document: d.Index})
	}
	if len(invalid) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the converted pod is not a valid podspec Pod (%d error(s); images must be oci:PATH layouts)", d.File, len(invalid)), findings: invalid}
	}
	return pod, nil
}
