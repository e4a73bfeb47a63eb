package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/store"
)

// Main is the body of a supervisor process: it supervises the pod name of the runtime root,
// running containers with the OCI runtime binary ociRuntime, and logs to stderr (Spawn points
// stderr at the pod's supervisor log). Both the podspec-supervisor binary and `podspec
// supervise` call it. Another live supervisor holding the pod is not an error.
func Main(ctx context.Context, root, ociRuntime, name string) error {
	s, err := store.Open(root)
	if err != nil {
		return err
	}
	p, err := s.Pod(name)
	if err != nil {
		return err
	}
	lg := log.New(os.Stderr, fmt.Sprintf("supervisor[%d] %s: ", os.Getpid(), name), log.LstdFlags|log.Lmicroseconds|log.LUTC)
	lg.Printf("starting")
	err = Run(ctx, Options{Pod: p, Backend: backend.New(s.Root, ociRuntime), Logf: lg.Printf})
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
