//go:build linux

package main

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newListCmd) }

// listEntry is one element of `podspec list`.
type listEntry struct {
	Name      string    `json:"name"`
	UID       string    `json:"uid"`
	Phase     string    `json:"phase"`
	CreatedAt time.Time `json:"createdAt"`
	// Error says why the pod's state cannot be read; its phase is then Unknown, and uid and
	// createdAt come from its PodCreated event.
	Error string `json:"error,omitempty"`
}

// phaseUnknown is the phase list shows for a pod whose state cannot be read.
const phaseUnknown = "Unknown"

func newListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every pod in the state root (JSON array, sorted by name)",
		Args:  cli.Args(0),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		s, err := f.store()
		if err != nil {
			return err
		}
		names, err := s.List()
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: err}
		}
		out := []listEntry{}
		for _, n := range names {
			p, release, err := podIn(s, n)
			if err != nil {
				continue // removed meanwhile
			}
			sum, err := p.ReadSummary()
			release()
			switch {
			case errors.Is(err, store.ErrUnreadable):
				uid, created := p.Identity()
				out = append(out, listEntry{Name: n, UID: uid, Phase: phaseUnknown, CreatedAt: created, Error: err.Error()})
			case err == nil:
				out = append(out, listEntry{Name: n, UID: sum.UID, Phase: string(sum.Phase), CreatedAt: sum.CreatedAt})
			}
		}
		return cli.PrintJSON(out)
	})
	return cmd
}
