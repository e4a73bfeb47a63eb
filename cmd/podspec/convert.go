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
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
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
passed over. Each document is validated first (as podspec validate does); one with an error, or
one that cannot go the way asked, is skipped and reported, and the others are still converted.

Every field that cannot be carried over is reported on standard error at its file:line:col
(` + spec.KUBE017 + ` for a Kubernetes field podspec does not model, ` + spec.KUBE018 + ` for a podspec field
Kubernetes has no field for); nothing is dropped silently. The converted documents go to standard output.
Exit status: 0 converted, 1 a document skipped (or, with --strict, anything not carried over),
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
	var out []any
	lost, skipped := 0, 0
	for _, c := range v.Convert(file, data, validator.Direction(to)) {
		for _, f := range c.Result.Findings {
			if !f.Suppressed {
				printFinding(stderr, f)
			}
		}
		if c.Skipped != "" {
			skipped++
			fmt.Fprintf(stderr, "%s: document %d%s: skipped: %s\n", file, c.Result.Document, describe(c.Result), c.Skipped)
			continue
		}
		for _, f := range c.NotCarried {
			fmt.Fprintf(stderr, "%s:%d:%d: %s: %s: %s\n", f.Pos.File, f.Pos.Line, f.Pos.Column, f.Rule, f.Path, f.Message)
			if f.Rule != spec.KUBE019 { // a value carried over normalised is carried over
				lost++
			}
		}
		out = append(out, c.Objects...)
	}
	if err := writeConverted(stdout, out, format); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write: %w", err)}
	}
	if skipped > 0 {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("%s: %d document(s) skipped, %d object(s) converted", file, skipped, len(out))}
	}
	if strict && lost > 0 {
		return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("%s: %d field(s) not carried over", file, lost)}
	}
	return nil
}

// describe names a result's document by kind and name, when it has them.
func describe(r *validator.Result) string {
	switch {
	case r.Kind != "" && r.Name != "":
		return fmt.Sprintf(" (%s %s)", r.Kind, r.Name)
	case r.Kind != "":
		return " (" + r.Kind + ")"
	}
	return ""
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
