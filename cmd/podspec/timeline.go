package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/timeline"
)

func init() { register(newTimelineCmd) }

func newTimelineCmd() *cobra.Command {
	var eventsFile, out string
	var grace int64
	cmd := &cobra.Command{
		Use:   "timeline (POD | --events FILE) [-o FILE]",
		Short: "Draw a pod's life as an SVG picture, from its events or a saved events stream",
		Long: `Draws the pod's life as a self-contained SVG: one lane per container in the order they
were first created, one bar per instance (created, started, ready, exited: exit code or signal),
restarts as further bars with their back-off, markers for probes, hooks, signals sent, the exit
policy and notifier deliveries, and each stop request with its grace budget shaded up to the
deadline. --events FILE reads a saved 'podspec events POD' stream ("-": stdin) instead of a pod;
a stop sequence begun by the exit policy gets its budget from the pod's
terminationGracePeriodSeconds, which --grace-period gives for a saved stream.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if eventsFile != "" {
				return cli.Args(0)(cmd, args)
			}
			return cli.Args(1)(cmd, args)
		},
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().StringVar(&eventsFile, "events", "", "a saved events stream (JSON lines; - for stdin) instead of a pod")
	cmd.Flags().StringVarP(&out, "output", "o", "-", "where to write the SVG (- for stdout)")
	cmd.Flags().Int64Var(&grace, "grace-period", -1, "the pod's terminationGracePeriodSeconds, for --events (default: unknown)")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		var evs []runtimev1.Event
		var opt timeline.Options
		if grace >= 0 {
			// Saturated rather than wrapped around: a huge grace period is a far deadline.
			g := time.Duration(min(grace, math.MaxInt64/int64(time.Second))) * time.Second
			opt.Grace = &g
		}
		if eventsFile != "" {
			var err error
			if evs, err = readEventsFile(eventsFile); err != nil {
				return err
			}
		} else {
			var err error
			if evs, opt.Grace, err = f.podEvents(cmd.Context(), args[0], opt.Grace); err != nil {
				return err
			}
		}
		if len(evs) == 0 {
			return errf(runtimev1.CodeFailed, "no events to draw")
		}
		return writeOutput(out, timeline.SVG(timeline.Build(evs, opt)))
	})
	return cmd
}

// readEventsFile reads a saved events stream: JSON lines, blank lines ignored. A line that is
// not an event fails with its line number.
func readEventsFile(name string) ([]runtimev1.Event, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, errf(runtimev1.CodeIO, "read events: %v", err)
		}
		defer fh.Close()
		r = fh
	}
	var evs []runtimev1.Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev runtimev1.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, errf(runtimev1.CodeUsage, "%s:%d: not an event: %v", name, n, err)
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, errf(runtimev1.CodeIO, "read events: %v", err)
	}
	return evs, nil
}

// writeOutput writes data to the file name, atomically (a failed write never leaves half a
// picture), or to stdout for "-".
func writeOutput(name string, data []byte) error {
	if name == "-" {
		_, err := os.Stdout.Write(data)
		return err
	}
	if err := atomicfile.WriteFile(name, data, 0o644); err != nil {
		return errf(runtimev1.CodeIO, "write %s: %v", name, err)
	}
	return nil
}
