package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"podspec.dev/podspec/conformance/probe"
)

// runHandler is `podspec-probe hook|notifier`: report the start, wait, create marker files,
// report the end and exit with the requested code.
func runHandler(kind string, args []string) (int, error) {
	fs := flag.NewFlagSet("podspec-probe "+kind, flag.ContinueOnError)
	var name, socket, handler string
	var sleep time.Duration
	var code int
	var touch listFlag
	var report bool
	fs.StringVar(&name, "name", "", "container name to report")
	fs.StringVar(&socket, "socket", "", "harness socket")
	fs.StringVar(&handler, "handler", "", "hook (postStart, preStop) or notifier name to report")
	fs.DurationVar(&sleep, "sleep", 0, "how long the handler runs")
	fs.IntVar(&code, "exit", 0, "exit code")
	fs.Var(&touch, "touch", "file created before exiting (repeatable)")
	fs.BoolVar(&report, "report", false, "report what the handler sees (environment, namespaces, mounts) after starting")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, nil
		}
		return 2, err
	}
	if fs.NArg() > 0 {
		return 2, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	role := probe.RoleHook
	if kind == "notifier" {
		role = probe.RoleNotifier
	}
	em := newEmitter(socket, name, role, handler)
	em.emit(probe.Event{Type: probe.TypeHandlerStart})
	if report {
		em.emit(probe.Event{Type: probe.TypeReport, Report: gatherReport(nil, nil)})
	}
	time.Sleep(sleep)
	for _, p := range touch {
		touchFile(p)
	}
	em.exitEvent(probe.TypeHandlerEnd, code)
	return code, nil
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
