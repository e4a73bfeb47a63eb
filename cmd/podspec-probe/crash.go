package main

import (
	"syscall"
	"unsafe"
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
