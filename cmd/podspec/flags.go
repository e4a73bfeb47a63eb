package main

// The contract's plumbing that every verb shares on every OS: the global flags, errors with
// the contract's codes and JSON error report, reading a manifest. The reference runtime's part
// (the state root, supervisors) is in runtime.go, which only Linux builds.

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

// rtFlags are the global flags of the runtime contract. Each runtime verb declares them as its
// own flags; cobra accepts them before or after the verb name.
type rtFlags struct {
	root        string
	ociRuntime  string
	errorFormat string
	// registries are the flags of the verbs that pull registry images (addRegistryFlags).
	registries registryFlags
}

// registryFlags say how registry images are pulled (Linux: registry.go): which registries may
// be reached over plain HTTP, and where per-registry CAs are.
type registryFlags struct {
	insecure  []string
	certsDirs []string
}

// addRuntimeFlags declares the contract's global flags on a verb: --error-format everywhere,
// and, where the reference runtime runs (Linux), --root and --oci-runtime (addStateFlags).
func addRuntimeFlags(cmd *cobra.Command) *rtFlags {
	f := &rtFlags{}
	addStateFlags(cmd, f)
	cmd.Flags().StringVar(&f.errorFormat, "error-format", "text", "error report on stderr: text or json")
	return f
}

// rtError is a contract error: a code, a message and, for InvalidManifest, findings.
type rtError struct {
	code     runtimev1.ErrorCode
	err      error
	findings []finding.Finding
}

func (e *rtError) Error() string { return e.err.Error() }

func errf(code runtimev1.ErrorCode, format string, args ...any) *rtError {
	return &rtError{code: code, err: fmt.Errorf(format, args...)}
}

// report turns an error into the exit status and stderr report the contract asks for.
func (f *rtFlags) report(err error) error {
	if err == nil {
		return nil
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return err
	}
	var re *rtError
	if !errors.As(err, &re) {
		re = &rtError{code: classify(err), err: err}
	}
	code := re.code.ExitStatus()
	if f.errorFormat == "json" {
		rep := runtimev1.ErrorReport{Code: re.code, Message: re.err.Error(), Findings: re.findings}
		fmt.Fprintln(os.Stderr, string(rep.Line()))
		return &cli.ExitError{Code: code}
	}
	for _, fd := range re.findings {
		fmt.Fprintf(os.Stderr, "%s:%d:%d: %s %s: %s\n", fd.Pos.File, fd.Pos.Line, fd.Pos.Column, fd.Severity, fd.Rule, fd.Message)
	}
	return &cli.ExitError{Code: code, Err: re.err}
}

func classify(err error) runtimev1.ErrorCode {
	if code, ok := runtimeErrorCode(err); ok {
		return code
	}
	if errors.Is(err, os.ErrPermission) || errors.Is(err, os.ErrNotExist) {
		return runtimev1.CodeIO
	}
	return runtimev1.CodeFailed
}

// wrap runs a verb body and reports its error per the contract.
func (f *rtFlags) wrap(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if f.errorFormat != "text" && f.errorFormat != "json" {
			return f.report(errf(runtimev1.CodeUsage, "--error-format must be text or json"))
		}
		return f.report(fn(cmd, args))
	}
}

// readManifest reads the manifest a runtime verb is given ("-" is standard input), bounded by
// the validator's size limit: a larger input is refused as InvalidManifest (MAN-007, as
// `podspec validate` reports it) and never read further, a /dev/zero argument included.
func readManifest(file string) ([]byte, error) {
	limit := manifest.DefaultLimits().MaxBytes
	var data []byte
	var err error
	if file == "-" {
		data, err = validator.ReadStream(os.Stdin, validator.StdinName, limit)
	} else {
		data, err = validator.ReadFile(file, limit)
	}
	var big *validator.TooLargeError
	if errors.As(err, &big) {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("read manifest: %w (%s)", err, spec.MAN007)}
	}
	if err != nil {
		return nil, &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("read manifest: %w", err)}
	}
	return data, nil
}
