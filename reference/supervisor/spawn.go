package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"podspec.dev/podspec/reference/store"
)

// Spawn starts a detached supervisor for the pod — argv is the command line of the podspec
// binary's hidden `supervise` verb — in a new session with its output appended to the pod's
// supervisor log, and waits until the pod has a live supervisor (this one or one another
// command started) or is terminal.
func Spawn(ctx context.Context, pod *store.Pod, argv []string) error {
	logf, err := os.OpenFile(pod.Path(store.SupervisorLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	defer devnull.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start supervisor of %s: %w", pod.Name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if ready(ctx, pod) {
			return nil
		}
		select {
		case err := <-exited:
			if ready(ctx, pod) || terminal(pod) {
				return nil
			}
			return fmt.Errorf("supervisor of %s exited (%v): %s", pod.Name, err, tail(pod.Path(store.SupervisorLog)))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("supervisor of %s did not come up: %s", pod.Name, tail(pod.Path(store.SupervisorLog)))
		}
	}
}

func ready(ctx context.Context, pod *store.Pod) bool {
	if !pod.SupervisorAlive() {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := Call(cctx, pod, &Request{Op: OpPing})
	return err == nil
}

func terminal(pod *store.Pod) bool {
	st, err := pod.ReadState()
	return err == nil && st.Pod.Status != nil && st.Pod.Status.FinishedAt != nil
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}

// Ensure makes sure a pod that is not terminal has a live supervisor: if its supervisor died,
// it starts a new one (which adopts the pod). It reports whether it started one.
func Ensure(ctx context.Context, pod *store.Pod, argv []string) (bool, error) {
	if terminal(pod) || pod.SupervisorAlive() {
		return false, nil
	}
	st, err := pod.ReadState()
	if err != nil {
		return false, err
	}
	if st.Supervisor.PID == 0 {
		// Never supervised: the creating command is about to start the first supervisor.
		return false, nil
	}
	if err := Spawn(ctx, pod, argv); err != nil {
		return false, err
	}
	return true, nil
}

// ErrNoSupervisor is returned when a pod that is not terminal has no supervisor to answer.
var ErrNoSupervisor = errors.New("pod has no live supervisor")
