package main

import (
	"fmt"
	"os"
	"sync"

	"podspec.dev/podspec/conformance/probe"
)

// emitter sends the events of one process, numbering them; its servers' goroutines share it.
type emitter struct {
	mu        sync.Mutex // serialises emit: Seq follows the order of delivery
	socket    string
	container string
	role      string
	handler   string
	instance  int
	seq       int
}

func newEmitter(socket, name, role, handler string) *emitter {
	if socket == "" {
		socket = os.Getenv(probe.EnvSocket)
	}
	if socket == "" {
		socket = probe.DefaultSocket
	}
	if name == "" {
		name = os.Getenv(probe.EnvName)
	}
	if name == "" {
		name, _ = os.Hostname()
	}
	return &emitter{socket: socket, container: name, role: role, handler: handler}
}

// emit fills the common fields and delivers ev; a delivery failure is printed, never fatal: the
// harness will notice the missing event, and the workload must still do what it was asked.
func (e *emitter) emit(ev probe.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	ev.Container = e.container
	ev.Role = e.role
	if ev.Handler == "" {
		ev.Handler = e.handler
	}
	ev.PID = os.Getpid()
	ev.Instance = e.instance
	ev.Seq = e.seq
	if err := probe.Emit(e.socket, ev); err != nil {
		fmt.Fprintf(os.Stderr, "podspec-probe: report %s event: %v\n", ev.Type, err)
	}
}

// exitEvent reports that the process exits with code; the caller exits right after.
func (e *emitter) exitEvent(typ string, code int) {
	c := code
	e.emit(probe.Event{Type: typ, ExitCode: &c})
}
