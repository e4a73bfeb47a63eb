package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"podspec.dev/podspec/conformance/probe"
)

// crash makes the process die from SIGSEGV. A signal the process sends itself cannot kill the
// init process of a PID namespace (the kernel drops it while the action is the default), but a
// real fault with the default action can: the kernel forces it. So crash gives SIGSEGV back its
// default action (the Go runtime had taken it) and touches address zero.
func crash() {
	var act [4]uint64 // struct sigaction with SIG_DFL, no flags, empty mask (amd64 and arm64)
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(syscall.SIGSEGV),
		uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	if errno != 0 {
		return
	}
	fault(nil)
}

// fault stores through p; with p nil it faults.
//
//go:noinline
func fault(p *int32) { *p = 1 }

// prctl options (linux/prctl.h).
const (
	prGetDumpable = 3
	prSetDumpable = 4
)

// prepareCore sets the process up for the crash that follows. With allow, it makes a core dump
// possible: dumpable, RLIMIT_CORE raised to its hard limit, and the working directory moved to
// dir (created), where a core_pattern without a directory puts the core. Without allow, it makes
// the process non-dumpable, so the kernel dumps no core whatever the host's settings.
// It returns what it achieved, for the crash event.
func prepareCore(allow bool, dir string) *probe.CoreSetup {
	setup := &probe.CoreSetup{}
	dumpable := uintptr(0)
	if allow {
		dumpable = 1
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err == nil {
			rl.Cur = rl.Max
			if err := syscall.Setrlimit(syscall.RLIMIT_CORE, &rl); err != nil {
				setup.Errors = append(setup.Errors, fmt.Sprintf("setrlimit RLIMIT_CORE: %v", err))
			}
		}
		if dir != "" {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				setup.Errors = append(setup.Errors, fmt.Sprintf("mkdir %s: %v", dir, err))
			} else if err := os.Chdir(dir); err != nil {
				setup.Errors = append(setup.Errors, fmt.Sprintf("chdir %s: %v", dir, err))
			}
		}
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, dumpable, 0); errno != 0 {
		setup.Errors = append(setup.Errors, fmt.Sprintf("prctl PR_SET_DUMPABLE: %v", errno))
	}
	r, _, _ := syscall.RawSyscall(syscall.SYS_PRCTL, prGetDumpable, 0, 0)
	setup.Dumpable = r == 1
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CORE, &rl); err == nil {
		setup.Limit = rl.Cur
	}
	setup.Dir, _ = os.Getwd()
	if data, err := os.ReadFile("/proc/sys/kernel/core_pattern"); err == nil {
		setup.Pattern = string(data)
	}
	return setup
}
