// Package timing runs the commands a benchmark compares the same way for every tool, through
// GNU time, for wall time, CPU time and peak RSS, and summarises repeated samples.
//
// Peak RSS is each tool's own maximum resident set size, as GNU time (/usr/bin/time, which
// every run goes through) reports it from its wait4 of the tool. It is not the benchmark's own
// wait4 of its child: Go starts a child with vfork, sharing the parent's address space until
// exec, and Linux counts that address space's peak into the child's ru_maxrss, so every tool
// would report at least the benchmark's own resident size. GNU time forks a copy of its own
// small address space instead (about 2 MB, which is the floor of the column).
package timing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// GNUTime runs every timed command, to measure its peak RSS (see the package comment).
const GNUTime = "/usr/bin/time"

// Sample is one timed run.
type Sample struct {
	Wall     time.Duration
	CPU      time.Duration // user + system
	MaxRSSKB int64
}

// Run runs args with output discarded and returns its wall time, CPU time and peak RSS. An exit
// status other than 0 and those in okExit is an error (a validator that finds errors in a
// corpus exits 1, and that is its answer, not a failure). Wall and CPU time are those of GNU
// time and the tool together (time's own are about a millisecond); the peak RSS is the tool's,
// as time reports it.
func Run(args []string, okExit ...int) (Sample, error) {
	if _, err := os.Stat(GNUTime); err != nil {
		return Sample{}, fmt.Errorf("GNU time (%s) is not installed: scripts/install-deps.sh installs it (Debian package time)", GNUTime)
	}
	rssFile, err := os.CreateTemp("", "timing-rss-")
	if err != nil {
		return Sample{}, err
	}
	rssFile.Close()
	defer os.Remove(rssFile.Name())
	cmd := exec.Command(GNUTime, append([]string{"-f", "%M", "-o", rssFile.Name(), "--"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && slices.Contains(okExit, exit.ExitCode()) {
		err = nil
	}
	if err != nil {
		msg := stderr.String()
		if len(msg) > 2000 {
			msg = msg[:2000] + "..."
		}
		return Sample{}, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, msg)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return Sample{}, errors.New("no resource usage for the child")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	out, err := os.ReadFile(rssFile.Name())
	if err != nil {
		return Sample{}, err
	}
	// With a non-zero exit GNU time writes "Command exited with non-zero status N" first.
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	rssKB, err := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: peak RSS %q: %w", GNUTime, out, err)
	}
	return Sample{Wall: wall, CPU: cpu, MaxRSSKB: rssKB}, nil
}

// Of maps samples to one measure each, for Stats.
func Of(ss []Sample, f func(Sample) float64) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// Stats returns the minimum, median and maximum.
func Stats(xs []float64) (lo, med, hi float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	med = s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[0], med, s[len(s)-1]
}
