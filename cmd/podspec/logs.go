//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/store"
)

func init() { register(newLogsCmd) }

func newLogsCmd() *cobra.Command {
	var previous, follow, timestamps bool
	var tail int
	var since string
	cmd := &cobra.Command{
		Use:   "logs POD CONTAINER",
		Short: "Print the output of a container's current (or --previous) instance, also after exit",
		Long: "Prints what the container's current instance wrote to its standard output and error, as it\n" +
			"wrote it. --tail and --since select its last lines or those from a time on; --timestamps puts\n" +
			"the time each line was read before it; --follow keeps printing, across log rotations and the\n" +
			"container's restarts, until the container will never run again.",
		Args: cli.Args(2),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().BoolVar(&previous, "previous", false, "the instance before the current one")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new output, across rotations and restarts, until the container ends for good")
	cmd.Flags().IntVar(&tail, "tail", -1, "only the last N lines (-1: all)")
	cmd.Flags().StringVar(&since, "since", "", "only lines read at or after this time: a duration before now (10s, 5m, 1h) or an RFC 3339 time")
	cmd.Flags().BoolVar(&timestamps, "timestamps", false, "put the time each line was read (RFC 3339, UTC) before it")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		filter := logs.Filter{Tail: tail}
		if tail < -1 {
			return errf(runtimev1.CodeUsage, "--tail %d: a number of lines, or -1 for all", tail)
		}
		if since != "" {
			t, err := parseSince(since, time.Now())
			if err != nil {
				return errf(runtimev1.CodeUsage, "--since: %v", err)
			}
			filter.Since = t
		}
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		if err := f.ensureSupervisor(cmd.Context(), p); err != nil {
			return err
		}
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		name := args[1]
		n, ok := currentInstance(st, name)
		if !ok {
			return errf(runtimev1.CodeNotFound, "pod %s has no container %q", args[0], name)
		}
		if previous {
			if n--; n < 0 {
				return nil
			}
			follow = false
		}
		path := p.LogPath(name, n)
		if !follow {
			lines, err := logs.Read(path, filter)
			if err != nil {
				return &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("read logs: %w", err)}
			}
			return logs.Write(os.Stdout, lines, timestamps)
		}
		fo := logs.NewFollower(path)
		defer fo.Close() // followLogs moves fo on to later instances in place
		lines, err := fo.All()
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("read logs: %w", err)}
		}
		if err := logs.Write(os.Stdout, filter.Apply(lines), timestamps); err != nil {
			return err
		}
		return followLogs(cmd.Context(), p, name, n, fo, timestamps)
	})
	return cmd
}

// currentInstance is the number (restartCount) of container name's current instance, and
// whether the pod has a container of that name.
func currentInstance(st *store.State, name string) (int32, bool) {
	spec, status := st.Pod.Spec, st.Pod.Status
	named := func(c v1alpha1.Container) bool { return c.Name == name }
	found := slices.ContainsFunc(spec.InitContainers, named) || slices.ContainsFunc(spec.Containers, named) ||
		slices.ContainsFunc(spec.DeferContainers, func(d v1alpha1.DeferContainer) bool { return d.Name == name })
	var n int32
	for _, list := range [][]v1alpha1.ContainerStatus{status.InitContainerStatuses, status.ContainerStatuses, status.DeferContainerStatuses} {
		for _, cs := range list {
			if cs.Name == name {
				n = cs.RestartCount
			}
		}
	}
	return n, found
}

// followLogs prints the output of instance n of container name as it comes, then of each later
// instance, until the container will never run again (or the pod finished) and its last
// instance's output is all printed. A line the instance ended without a newline is printed
// once its instance has ended.
func followLogs(ctx context.Context, p *store.Pod, name string, n int32, fo *logs.Follower, timestamps bool) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		// The state first: output read after it holds everything an instance it reports ended
		// wrote (its end is recorded once its output is in its log).
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		cur, _ := currentInstance(st, name)
		rec := st.Containers[name]
		over := st.Pod.Status.FinishedAt != nil || (rec != nil && rec.Terminal)
		lines, err := fo.All()
		if err != nil {
			return &rtError{code: runtimev1.CodeIO, err: fmt.Errorf("read logs: %w", err)}
		}
		if err := logs.Write(os.Stdout, lines, timestamps); err != nil {
			return err
		}
		if cur > n || over {
			if l := fo.Pending(); l != nil {
				logs.Write(os.Stdout, []logs.Line{*l}, timestamps)
			}
			fo.Close()
			if cur == n {
				return nil
			}
			n++
			*fo = *logs.NewFollower(p.LogPath(name, n))
			continue
		}
		if len(lines) > 0 {
			continue // while output flows, read on at once: a follower keeps up with rotations
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// parseSince reads --since: a duration before now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration before now is positive", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a duration (10s, 5m, 1h) nor an RFC 3339 time (2026-12-07T10:00:00Z)", s)
	}
	return t, nil
}
