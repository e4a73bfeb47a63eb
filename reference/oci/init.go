package oci

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InInit reports whether the host process pid of a created container is still the OCI
// runtime's own init, waiting to exec the container's program, from its name: runc's init
// re-executes itself as "runc:[2:INIT]" (and "runc:[0:PARENT]", "runc:[1:CHILD]" before it),
// crun's keeps the runtime's own name ("crun"), and either takes the program's name at the
// exec. tells is false when the name cannot tell: the process has ended, or the runtime runs
// containers in a sandbox whose host process is the same before and after the start (gVisor's
// runsc, Features.SandboxPIDs: its pid is the sandbox's, named "exe" throughout); the runtime's
// state then decides.
func (r *Runtime) InInit(ctx context.Context, pid int) (inInit, tells bool) {
	if feat, err := r.Features(ctx); err == nil && feat.SandboxPIDs {
		return false, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return false, false
	}
	comm := strings.TrimSpace(string(b))
	return strings.HasPrefix(comm, "runc:") || comm == commOf(r.binary()), true
}

// commOf is the name the kernel gives a process started from the executable path: its base
// name, cut to TASK_COMM_LEN-1 bytes.
func commOf(path string) string {
	name := filepath.Base(path)
	if len(name) > 15 {
		name = name[:15]
	}
	return name
}
