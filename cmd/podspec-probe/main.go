// Command podspec-probe is the workload of every conformance test image. It does what a test
// asks of a container — exit with a code after a delay, trap, ignore or linger on signals, loop,
// count its own restarts through a file on a volume, die from a signal, act as a hook, notifier
// or probe handler — and reports everything it does and sees as one JSON event per line to the
// harness's unix socket (PODSPEC_PROBE_SOCKET, default /probe/events.sock). The harness stamps
// the events on arrival, so a test compares them with the runtime's own events on one clock.
//
// It is built static (CGO_ENABLED=0) so it runs in an image holding nothing else.
//
// Usage:
//
//	podspec-probe [run] [flags]        the container's own process (see -h)
//	podspec-probe hook [flags]         a postStart/preStop exec handler
//	podspec-probe notifier [flags]     a notifier exec handler
//	podspec-probe check [flags]        a startup/readiness/liveness probe command
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(dispatch(os.Args[1:]))
}

// dispatch runs the subcommand named by args[0] (run when absent or a flag) and returns the
// process exit code. Subcommands that must exit with a particular code call exit themselves.
func dispatch(args []string) int {
	sub := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	var err error
	var code int
	switch sub {
	case "run":
		code, err = runWorkload(args)
	case "hook":
		code, err = runHandler("hook", args)
	case "notifier":
		code, err = runHandler("notifier", args)
	case "check":
		code, err = runCheck(args)
	case "eat":
		code, err = runEat(args)
	case "help":
		fmt.Fprintln(os.Stderr, "usage: podspec-probe [run|hook|notifier|check|eat] [flags]; each takes -h")
		return 0
	default:
		fmt.Fprintf(os.Stderr, "podspec-probe: unknown subcommand %q\n", sub)
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "podspec-probe:", err)
	}
	return code
}
