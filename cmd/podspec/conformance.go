//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
)

func init() { register(newConformanceCmd) }

// newConformanceCmd is `podspec conformance ARGS`: it runs the podspec-conformance binary with
// ARGS in place of this process, so its output, exit status and signals are that binary's. The
// suite is a binary of its own (cmd/podspec-conformance) because linking Ginkgo and the suite
// doubled the start time of every podspec command, the runtime verbs included.
func newConformanceCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "conformance",
		Short:              "Certify a runtime against the podspec runtime interface (runs podspec-conformance)",
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			bin, err := conformanceBinary()
			if err != nil {
				return &cli.ExitError{Code: cli.ExitUsage, Err: err}
			}
			err = syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
			return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("run %s: %w", bin, err)}
		},
	}
}

// conformanceBinary finds podspec-conformance: beside this binary (as `go build -o bin/
// ./cmd/...` leaves them), else on $PATH.
func conformanceBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "podspec-conformance")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath("podspec-conformance"); err == nil {
		return p, nil
	}
	return "", errors.New("podspec conformance runs the podspec-conformance binary, found neither beside podspec nor on $PATH (build it: go build -o bin/ ./cmd/podspec-conformance)")
}
