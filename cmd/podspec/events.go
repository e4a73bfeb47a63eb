//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newEventsCmd) }

func newEventsCmd() *cobra.Command {
	var follow bool
	var since string
	cmd := &cobra.Command{
		Use:   "events POD",
		Short: "Print a pod's lifecycle events as JSON lines (--follow: until PodFinished)",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new events until the pod finishes")
	cmd.Flags().StringVar(&since, "since", "", "only events at or after this time: a duration before now (10s, 5m, 1h) or an RFC 3339 time")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		var from time.Time
		if since != "" {
			t, err := parseSince(since, time.Now())
			if err != nil {
				return errf(runtimev1.CodeUsage, "--since: %v", err)
			}
			from = t
		}
		// The log of a pod whose state cannot be read can still be read.
		p, release, err := f.podMaybeUnreadable(args[0])
		if err != nil {
			return err
		}
		defer release()
		if _, err := p.ReadState(); err == nil {
			if err := f.ensureSupervisor(cmd.Context(), p); err != nil {
				return err
			}
		}
		warnUnpersisted(p)
		w := bufio.NewWriter(os.Stdout)
		print := func(ev runtimev1.Event) bool {
			if !ev.Time.Before(from) {
				b, _ := json.Marshal(ev)
				w.Write(b)
				w.WriteByte('\n')
				w.Flush()
			}
			return !(follow && ev.Type == runtimev1.EventPodFinished)
		}
		if !follow {
			evs, err := p.ReadEvents(0)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				print(ev)
			}
			return nil
		}
		// A terminal pod without a supervisor records nothing more: following ends even if
		// its PodFinished was lost (a supervisor that died with events it could not write).
		finished := func() bool {
			st, err := p.ReadState()
			return (err == nil && st.Pod.Status.FinishedAt != nil || errors.Is(err, store.ErrUnreadable)) && !p.SupervisorAlive()
		}
		return p.FollowEvents(cmd.Context(), 0, finished, print)
	})
	return cmd
}
