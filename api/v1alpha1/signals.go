package v1alpha1

import (
	"strconv"
	"strings"
)

// linuxSignals maps the Linux signal names this API accepts to their numbers (x86-64, arm64).
var linuxSignals = map[string]int32{
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7,
	"SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12, "SIGPIPE": 13,
	"SIGALRM": 14, "SIGTERM": 15, "SIGSTKFLT": 16, "SIGCHLD": 17, "SIGCONT": 18, "SIGSTOP": 19,
	"SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22, "SIGURG": 23, "SIGXCPU": 24, "SIGXFSZ": 25,
	"SIGVTALRM": 26, "SIGPROF": 27, "SIGWINCH": 28, "SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
}

// Real-time signal range on Linux.
const (
	sigRTMin = 34
	sigRTMax = 64
)

// SignalNumber returns the number of a signal name such as "SIGTERM" or "SIGRTMIN+3".
// Names are upper case with the SIG prefix, as Kubernetes' stopSignal enum writes them.
func SignalNumber(name string) (int32, bool) {
	if n, ok := linuxSignals[name]; ok {
		return n, true
	}
	switch {
	case name == "SIGRTMIN":
		return sigRTMin, true
	case name == "SIGRTMAX":
		return sigRTMax, true
	case strings.HasPrefix(name, "SIGRTMIN+"):
		k, err := strconv.Atoi(strings.TrimPrefix(name, "SIGRTMIN+"))
		if err == nil && k >= 1 && sigRTMin+k < sigRTMax {
			return int32(sigRTMin + k), true
		}
	case strings.HasPrefix(name, "SIGRTMAX-"):
		k, err := strconv.Atoi(strings.TrimPrefix(name, "SIGRTMAX-"))
		if err == nil && k >= 1 && sigRTMax-k > sigRTMin {
			return int32(sigRTMax - k), true
		}
	}
	return 0, false
}

// SignalName returns the canonical name of a signal number ("" if unknown).
func SignalName(n int32) string {
	for name, v := range linuxSignals {
		if v == n {
			return name
		}
	}
	switch {
	case n == sigRTMin:
		return "SIGRTMIN"
	case n == sigRTMax:
		return "SIGRTMAX"
	case n > sigRTMin && n < sigRTMax:
		return "SIGRTMIN+" + strconv.Itoa(int(n-sigRTMin))
	}
	return ""
}

// SignalNames lists the fixed (non real-time) signal names in number order.
func SignalNames() []string {
	out := make([]string, 32)
	for name, n := range linuxSignals {
		out[n] = name
	}
	var names []string
	for _, s := range out {
		if s != "" {
			names = append(names, s)
		}
	}
	return names
}

// Uncatchable reports whether a signal can be neither caught nor ignored (SIGKILL, SIGSTOP),
// which makes it useless as a stop or notifier signal.
func Uncatchable(name string) bool { return name == "SIGKILL" || name == "SIGSTOP" }
