package main

import (
	"time"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
)

func init() { register(newListCmd) }

// listEntry is one element of `podspec list`.
type listEntry struct {
	Name      string    `json:"name"`
	UID       string    `json:"uid"`
	Phase     string    `json:"phase"`
	CreatedAt time.Time `json:"createdAt"`
}

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
			return &rtError{code: codeIO, err: err}
		}
		out := []listEntry{}
		for _, n := range names {
			p, release, err := f.pod(n)
			if err != nil {
				continue // removed meanwhile
			}
			st, err := p.ReadState()
			release()
			if err != nil || st.Pod.Status == nil {
				continue
			}
			out = append(out, listEntry{Name: n, UID: st.Pod.Status.UID, Phase: string(st.Pod.Status.Phase), CreatedAt: st.CreatedAt})
		}
		return cli.PrintJSON(out)
	})
	return cmd
}
