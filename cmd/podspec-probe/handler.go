package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/conformance/probe"
)

// runHandler is `podspec-probe hook|notifier`: report the start, start its descendants (if
// asked), wait, create marker files, report the end and exit with the requested code.
func runHandler(kind string, args []string) (int, error) {
	fs := flag.NewFlagSet("podspec-probe "+kind, flag.ContinueOnError)
	var name, socket, handler string
	var sleep time.Duration
	var code, descendants, depth int
	var touch listFlag
	var report bool
	var lock string
	fs.StringVar(&name, "name", "", "container name to report")
	fs.StringVar(&socket, "socket", "", "harness socket")
	fs.StringVar(&handler, "handler", "", "hook (postStart, preStop) or notifier name to report")
	fs.DurationVar(&sleep, "sleep", 0, "how long the handler runs")
	fs.IntVar(&code, "exit", 0, "exit code")
	fs.Var(&touch, "touch", "file created before exiting (repeatable)")
	fs.BoolVar(&report, strings.TrimPrefix(probe.ReportFlag, "-"), false, "report what the handler sees (environment, namespaces, mounts) after starting")
	fs.IntVar(&descendants, "descendants", 0, "start a chain of this many descendants (child, grandchild, ...), the first in a session of its own; each reports its start and, after -sleep, its end as handler HANDLER.1, HANDLER.2, ...")
	fs.IntVar(&depth, "depth", 0, "this process's place in a chain of descendants (set by the parent)")
	fs.StringVar(&lock, "lock", "", "hold an exclusive flock on this file (created) from the start until the process exits, so that the harness can tell when it is gone")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if lock != "" {
		// The descriptor is close-on-exec and never closed: only this process's exit releases it.
		f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return 2, fmt.Errorf("-lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			return 2, fmt.Errorf("-lock: %w", err)
		}
		defer runtime.KeepAlive(f)
	}
	role := probe.RoleHook
	if kind == "notifier" {
		role = probe.RoleNotifier
	}
	reported := handler
	if depth > 0 {
		reported = handler + "." + strconv.Itoa(depth)
	}
	em := newEmitter(socket, name, role, reported)
	em.emit(probe.Event{Type: probe.TypeHandlerStart})
	if report {
		em.emit(probe.Event{Type: probe.TypeReport, Report: gatherReport(nil, nil, nil)})
	}
	if depth < descendants {
		if err := startDescendant(kind, em.socket, em.container, handler, sleep, descendants, depth+1); err != nil {
			fmt.Fprintln(os.Stderr, "podspec-probe:", err)
		}
	}
	time.Sleep(sleep)
	for _, p := range touch {
		touchFile(p)
	}
	em.exitEvent(probe.TypeHandlerEnd, code)
	return code, nil
}

// startDescendant starts the next process of a handler's chain of descendants and leaves it
// running (it is not waited for): the first one in a session (and so a process group) of its
// own, so that only a runtime that kills a handler's whole process tree, not only its process
// group, reaches it; the later ones are its children.
func startDescendant(kind, socket, name, handler string, sleep time.Duration, descendants, depth int) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("descendant %d: %w", depth, err)
	}
	cmd := exec.Command(self, kind, "-name", name, "-socket", socket, "-handler", handler, "-sleep", sleep.String(),
		"-descendants", strconv.Itoa(descendants), "-depth", strconv.Itoa(depth))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: depth == 1}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("descendant %d: %w", depth, err)
	}
	return nil
}

// runCheck is `podspec-probe check`: a probe command that succeeds when a marker exists, fails a
// given number of times first, or exits with a fixed code.
func runCheck(args []string) (int, error) {
	fs := flag.NewFlagSet("podspec-probe check", flag.ContinueOnError)
	var name, socket, handler, marker, countFile string
	var failTimes, code int
	var quiet bool
	var sleep time.Duration
	fs.StringVar(&name, "name", "", "container name to report")
	fs.StringVar(&socket, "socket", "", "harness socket")
	fs.StringVar(&handler, "handler", "", "probe kind to report (startup, readiness, liveness)")
	fs.StringVar(&marker, "marker", "", "succeed iff this file exists")
	fs.StringVar(&countFile, "count-file", "", "file counting invocations (for -fail-times)")
	fs.IntVar(&failTimes, "fail-times", 0, "fail the first N invocations, then succeed (needs -count-file)")
	fs.IntVar(&code, "exit", 0, "exit code when neither -marker nor -fail-times is given")
	fs.BoolVar(&quiet, "quiet", false, "do not report the check")
	fs.DurationVar(&sleep, "sleep", 0, "run this long before deciding (to exceed a probe's timeoutSeconds)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	if failTimes > 0 && countFile == "" {
		return 2, errors.New("-fail-times needs -count-file")
	}
	time.Sleep(sleep)
	switch {
	case marker != "":
		code = 0
		if _, err := os.Stat(marker); err != nil {
			code = 1
		}
	case failTimes > 0:
		n, err := countInstance(countFile)
		if err != nil {
			return 2, err
		}
		code = 0
		if n <= failTimes {
			code = 1
		}
	}
	if !quiet {
		em := newEmitter(socket, name, probe.RoleCheck, handler)
		result := "success"
		if code != 0 {
			result = "failure"
		}
		em.emit(probe.Event{Type: probe.TypeCheck, Result: result, ExitCode: &code})
	}
	return code, nil
}
