package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/store"
)

// Main is the body of a supervisor process: it supervises the pod name of the runtime root,
// running containers with the OCI runtime binary ociRuntime, and logs to stderr (Spawn points
// stderr at the pod's supervisor log). With name PendingPod (a supervisor started by Prepare)
// it first waits for its pod's name on descriptor 3, then sends its output to the pod's log
// itself; when the creating command gives up instead, it returns nil at once. Both the
// podspec-supervisor binary and `podspec supervise` call it. Another live supervisor holding
// the pod is not an error.
func Main(ctx context.Context, root, ociRuntime, name string) error {
	pending := name == PendingPod
	if pending {
		var ok bool
		var err error
		if name, ok, err = AwaitPod(); err != nil || !ok {
			return err
		}
	}
	s, err := store.Open(root)
	if err != nil {
		return err
	}
	p, err := s.Pod(name)
	if err != nil {
		return err
	}
	if pending {
		if err := logTo(p.Path(store.SupervisorLog)); err != nil {
			return err
		}
	}
	lg := log.New(os.Stderr, fmt.Sprintf("supervisor[%d] %s: ", os.Getpid(), name), log.LstdFlags|log.Lmicroseconds|log.LUTC)
	lg.Printf("starting")
	be := backend.New(s.Root, ociRuntime)
	be.Logf = lg.Printf
	if st, err := p.ReadState(); err == nil {
		be.LogLimits = st.LogLimits // fixed when the pod was created
		be.HostCreateParallelism = st.HostCreateParallelism
	}
	err = Run(ctx, Options{Pod: p, Backend: be, Logf: lg.Printf})
	if errors.Is(err, ErrAlreadySupervised) {
		lg.Printf("another supervisor holds the pod; exiting")
		return nil
	}
	if err != nil {
		lg.Printf("failed: %v", err)
		return err
	}
	lg.Printf("pod finished; exiting")
	return nil
}

// logTo points this process's stdout and stderr (the log package's output, and a panic's
// report) at the file path, opened for appending.
func logTo(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("supervisor log: %w", err)
	}
	defer f.Close()
	for _, fd := range []int{1, 2} {
		if err := unix.Dup3(int(f.Fd()), fd, 0); err != nil {
			return fmt.Errorf("supervisor log: %w", err)
		}
	}
	return nil
}
