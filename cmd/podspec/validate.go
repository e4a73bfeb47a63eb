package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/report"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

func init() { register(newValidateCmd) }

// informationURI is where reports point users for more about the tool.
const informationURI = "https://podspec.dev"

// validateFlags are the options of podspec validate.
type validateFlags struct {
	format     string
	output     string
	updateFrom string
	failFast   bool
	failOn     string
	engines    []string
	color      string
	workers    int
	limits     manifest.Limits
	cpuProfile string
	exclude    []string
	kubeVer    string
}

func newValidateCmd() *cobra.Command {
	f := validateFlags{limits: manifest.DefaultLimits()}
	cmd := &cobra.Command{
		Use:   "validate [flags] PATH... | -",
		Short: "Validate pod and notification manifests",
		Long: `Validate podspec.dev/v1alpha1 Pod and Notification manifests: files, directories (recursively:
*.yaml, *.yml, *.json) or standard input ("-"), YAML with several documents or JSON.

Every finding of every document of every file is reported with file:line:col, a rule ID and a
severity. Exit status: 0 clean or warnings only, 1 findings (errors, or warnings with
--fail-on warning), 2 usage error, 3 I/O error.

Suppress a finding in a manifest with the annotations
  podspec.dev/ignore: "RULE-ID,RULE-ID"
  podspec.dev/ignore-reason: "why"
See docs/validate.md.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.format, "format", "o", "text", "output format: "+strings.Join(report.Formats(), ", "))
	fl.StringVar(&f.output, "output", "", "write the report to FILE instead of standard output")
	fl.StringVar(&f.updateFrom, "update-from", "", "validate PATH as an in-place update of the pod in OLD")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop after the first file with an error")
	fl.StringVar(&f.failOn, "fail-on", "error", "lowest severity that makes the exit status 1: error or warning")
	fl.StringSliceVar(&f.engines, "engine", nil, "engines to run (default "+strings.Join(validator.DefaultEngines(), ",")+
		"; available: "+strings.Join(validator.AvailableEngines(), ",")+")")
	fl.StringVar(&f.color, "color", "auto", "colour text output: auto (a terminal without NO_COLOR), always, never")
	fl.IntVar(&f.workers, "workers", 0, "documents validated at once (default GOMAXPROCS)")
	fl.Int64Var(&f.limits.MaxBytes, "max-bytes", f.limits.MaxBytes, "largest file accepted, in bytes")
	fl.IntVar(&f.limits.MaxDepth, "max-depth", f.limits.MaxDepth, "deepest nesting accepted")
	fl.IntVar(&f.limits.MaxAliasExpansion, "max-alias-nodes", f.limits.MaxAliasExpansion, "most nodes a document may reach through YAML aliases")
	fl.IntVar(&f.limits.MaxDocuments, "max-documents", f.limits.MaxDocuments, "most documents in one file")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "leave out files and directories matching GLOB when walking a directory (a name such as kustomization.yaml or charts, or a relative path such as base/*.yaml); repeatable")
	fl.StringVar(&f.kubeVer, "kubernetes-version", kubernetes.Newest().String(), "check Kubernetes objects against the API versions and fields of this Kubernetes version: "+strings.Join(kubernetes.Versions(), ", "))
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a Go CPU profile of the run to FILE (for performance reports)")
	_ = fl.MarkHidden("cpuprofile")
	return cmd
}

func usageErr(format string, a ...any) error {
	return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf(format, a...)}
}

func runValidate(cmd *cobra.Command, args []string, f validateFlags) error {
	if f.failOn != "error" && f.failOn != "warning" {
		return usageErr("--fail-on must be error or warning, not %q", f.failOn)
	}
	if f.color != "auto" && f.color != "always" && f.color != "never" {
		return usageErr("--color must be auto, always or never, not %q", f.color)
	}
	if f.updateFrom != "" && (len(args) != 1 || args[0] == "-") {
		return usageErr("--update-from OLD takes exactly one new manifest file")
	}
	if cmd.Flags().Changed("workers") && f.workers <= 0 {
		return usageErr("--workers must be at least 1, not %d", f.workers)
	}
	if f.limits.MaxBytes <= 0 || f.limits.MaxDepth <= 0 || f.limits.MaxAliasExpansion <= 0 || f.limits.MaxDocuments <= 0 {
		return usageErr("limits must be positive")
	}
	kubeVer, err := kubernetes.ParseVersion(f.kubeVer)
	if err != nil {
		return usageErr("--kubernetes-version: %w", err)
	}
	tuneGC()
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("create profile: %w", err)}
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("start profile: %w", err)}
		}
		defer pprof.StopCPUProfile()
	}
	stderr := cmd.ErrOrStderr()
	skipped := func(name, why string) { fmt.Fprintf(stderr, "podspec: skipped %s: %s\n", name, why) }
	v, err := validator.New(validator.Options{Engines: f.engines, Limits: f.limits, Workers: f.workers, FailFast: f.failFast, Skipped: skipped, Exclude: f.exclude, KubernetesVersion: kubeVer})
	if err != nil {
		return usageErr("%w", err)
	}

	out := cmd.OutOrStdout()
	toStdout := true
	var file *os.File
	if f.output != "" && f.output != "-" {
		file, err = os.Create(f.output)
		if err != nil {
			return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("create report: %w", err)}
		}
		defer file.Close()
		out, toStdout = file, false
	}
	buf := bufio.NewWriterSize(out, 64<<10)
	w, err := report.New(f.format, buf, report.Options{
		Color: useColor(f.color, toStdout),
		Tool:  report.Tool{Name: "podspec", Version: toolVersion(), InformationURI: informationURI},
		Rules: spec.Rules(),
	})
	if err != nil {
		return usageErr("%w", err)
	}

	var sum validator.Summary
	var runErr error
	if f.updateFrom != "" {
		sum, runErr = runUpdate(v, f.updateFrom, args[0], w)
	} else {
		sum, runErr = v.Run(cmd.Context(), args, cmd.InOrStdin(), w.Result)
	}
	if err := w.Close(sum); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write report: %w", err)}
	}
	if err := buf.Flush(); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write report: %w", err)}
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write report: %w", err)}
		}
	}
	if runErr != nil {
		if errors.Is(runErr, validator.ErrInvalidOld) {
			return &cli.ExitError{Code: cli.ExitFindings, Err: runErr}
		}
		return &cli.ExitError{Code: cli.ExitIO, Err: runErr}
	}
	if sum.Errors > 0 || (f.failOn == "warning" && sum.Warnings > 0) {
		return &cli.ExitError{Code: cli.ExitFindings}
	}
	return nil
}

// runUpdate validates newFile as an update of oldFile and feeds the writer.
func runUpdate(v *validator.Validator, oldFile, newFile string, w report.Writer) (validator.Summary, error) {
	results, err := v.Update(oldFile, newFile)
	if err != nil {
		return validator.Summary{}, err
	}
	sum := validator.Summary{Files: 1}
	for _, r := range results {
		sum.Documents++
		sum.Add(r)
		if err := w.Result(r); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// tuneGC trades a little memory for a lot of CPU: validation allocates many short-lived
// objects while the live heap stays small (the compiled schemas, the documents in flight and,
// for a directory, its sorted entries: about 4 MB for a stream of any length, 11 MB for a
// directory of 100,000 files), so the default GOGC=100 spends far more CPU collecting than the
// memory is worth. Unless the user set GOGC or GOMEMLIMIT, collect at 3x the live heap (peak
// RSS about 25 MB for 10,000 documents, as little as kubeconform takes), with a soft 64 MiB
// limit for a very large document. A tight limit makes the collector run without pause once
// the live heap nears it (a 20 MiB limit did for 100,000 files: a third of the CPU).
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(64 << 20)
	}
}

// useColor decides whether text output is coloured.
func useColor(mode string, toStdout bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if os.Getenv("NO_COLOR") != "" || !toStdout {
		return false
	}
	return term.IsTerminal(int(os.Stdout.Fd()))
}

// toolVersion is the release and commit the binary was built from, as reports name the tool.
func toolVersion() string { return readBuild().version() }
