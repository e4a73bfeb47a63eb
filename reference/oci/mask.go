package oci

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// maskedArg0 is the argv[0] under which a binary linking this package runs an OCI runtime with
// the hybrid cgroup2 controllers masked (Features.MaskHybridControllers) instead of its own
// main: argv is then maskedArg0, the runtime binary, the runtime's arguments.
const maskedArg0 = "podspec-oci-masked"

func init() {
	if len(os.Args) >= 2 && os.Args[0] == maskedArg0 {
		os.Exit(runMasked(os.Args[1], os.Args[1:]))
	}
}

// runMasked runs in a mount namespace of its own (the parent started it with CLONE_NEWNS,
// which Go follows by making every mount private, so nothing propagates back to the host):
// it binds /dev/null over HybridControllers, so that the runtime reads no cgroup2 controller,
// and execs the runtime. The runtime then manages the v1 controllers as on a legacy host; the
// cgroup2 controllers (hugetlb on the project's hosts) are left alone, which podspec never
// configures. It returns only on failure, with status 125.
func runMasked(bin string, argv []string) int {
	if err := unix.Mount(os.DevNull, HybridControllers, "", unix.MS_BIND, ""); err != nil {
		fmt.Fprintf(os.Stderr, "%s: mask %s: %v\n", maskedArg0, HybridControllers, err)
		return 125
	}
	path, err := exec.LookPath(bin)
	if err == nil {
		err = syscall.Exec(path, argv, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "%s: exec %s: %v\n", maskedArg0, bin, err)
	return 125
}

// maskedCommand returns the command that runs the runtime binary with args in a mount
// namespace where the hybrid cgroup2 controllers are masked: this executable, re-run under
// maskedArg0.
func maskedCommand(binary string, args []string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("mask hybrid cgroup controllers: %w", err)
	}
	cmd := exec.Command(self, append([]string{binary}, args...)...)
	cmd.Args[0] = maskedArg0
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	return cmd, nil
}
