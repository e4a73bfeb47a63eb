// Package cli is what podspec's commands (podspec, podspec-conformance) share about how a verb
// ends: the exit statuses every verb uses, the error that carries one, the positional-argument
// check that reports a usage error, and JSON on stdout.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses shared by every verb (the runtime verbs document further ones in
// docs/runtime-interface.md).
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
	ExitIO       = 3
)

// ExitError carries the exit status a verb wants; Err is nil when the verb already printed
// everything it had to say.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Args is a positional-argument check for exactly n arguments that reports a usage error.
func Args(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s takes %d argument(s), got %d", cmd.Name(), n, len(args))}
		}
		return nil
	}
}

// Status is the exit status and message for the error a root command's Execute returned:
// an ExitError's own, else a usage error (cobra's argument and unknown-command errors).
func Status(err error) (int, error) {
	if err == nil {
		return ExitOK, nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, ee.Err
	}
	return ExitUsage, err
}

// PrintJSON writes v as one line of JSON on stdout.
func PrintJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(os.Stdout, string(b))
	return err
}
