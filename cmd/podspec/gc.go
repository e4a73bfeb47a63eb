//go:build linux

package main

import (
	"errors"
	"sort"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newGCCmd) }

func newGCCmd() *cobra.Command {
	var olderThan time.Duration
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove terminal pods whose finishedAt is at least --older-than ago",
		Args:  cli.Args(0),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "minimum time since the pod finished (Go duration)")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		s, err := f.store()
		if err != nil {
			return err
		}
		names, err := s.List()
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: err}
		}
		removed := []string{}
		now := time.Now()
		for _, n := range names {
			p, err := s.Pod(n)
			if err != nil {
				continue
			}
			st, err := p.ReadState()
			if err != nil || st.Pod.Status == nil || st.Pod.Status.FinishedAt == nil {
				continue
			}
			age := now.Sub(*st.Pod.Status.FinishedAt)
			if age < olderThan {
				continue
			}
			if err := f.removePod(cmd.Context(), s, p, false); err != nil {
				if errors.Is(err, store.ErrBusy) {
					continue // being read: left for a later gc
				}
				return err
			}
			removed = append(removed, n)
		}
		sort.Strings(removed)
		return cli.PrintJSON(map[string][]string{"removed": removed})
	})
	return cmd
}
