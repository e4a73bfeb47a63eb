//go:build !linux

package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
)

func init() {
	for _, name := range runtimeVerbs {
		register(func() *cobra.Command {
			return &cobra.Command{
				Use:                name,
				Short:              "A verb of the reference runtime (Linux only)",
				DisableFlagParsing: true,
				RunE: func(*cobra.Command, []string) error {
					return &cli.ExitError{Code: runtimev1.CodeRuntimeUnavailable.ExitStatus(), Err: errNoRuntime(name)}
				},
			}
		})
	}
}

func errNoRuntime(verb string) error {
	return fmt.Errorf("%s: the reference runtime runs on Linux only, and this build is for %s/%s; here podspec validates, converts and draws (validate, schema, rules, convert, timeline --events)", verb, runtime.GOOS, runtime.GOARCH)
}

// addStateFlags declares nothing: there is no state root without the runtime.
func addStateFlags(*cobra.Command, *rtFlags) {}

// runtimeErrorCode knows no runtime errors without the runtime.
func runtimeErrorCode(error) (runtimev1.ErrorCode, bool) { return "", false }

// podEvents: a pod's events need the reference runtime; a saved stream (--events) does not.
func (f *rtFlags) podEvents(context.Context, string, *time.Duration) ([]runtimev1.Event, *time.Duration, error) {
	return nil, nil, &rtError{code: runtimev1.CodeRuntimeUnavailable, err: fmt.Errorf("%w; give a saved stream with --events FILE", errNoRuntime("timeline POD"))}
}
