// Package podroot runs a podspec binary against a state root of a benchmark's own: a command
// whose output is kept for its error, and every pod of the root removed whatever happened.
package podroot

import (
	"fmt"
	"os/exec"
	"strings"

	"podspec.dev/podspec/reference/store"
)

// Run runs name with args; a failure's error carries the command and its combined output.
func Run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// Root is a podspec binary and the state root it runs against.
type Root struct {
	Bin, Dir string
}

// Podspec runs the binary with --root Dir and args.
func (r Root) Podspec(args ...string) error {
	return Run(r.Bin, append([]string{"--root", r.Dir}, args...)...)
}

// RemoveAll removes every pod of the root with `rm --force`, one at a time, ignoring
// failures: it is a run's cleanup, which must go on whatever the run left.
func (r Root) RemoveAll() {
	s, err := store.Open(r.Dir)
	if err != nil {
		return
	}
	names, _ := s.List()
	for _, n := range names {
		r.Podspec("rm", "--force", n)
	}
}
