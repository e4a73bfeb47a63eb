package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// DialIn connects to address over network (tcp, tcp4, tcp6) from inside the network namespace
// pinned at netns (NamespacePaths()[oci.NamespaceNetwork]): the socket is created on a
// throwaway thread that entered the namespace, so it belongs to the pod's network, and no
// thread of the process stays in it.
func DialIn(ctx context.Context, netns, network, address string) (net.Conn, error) {
	var conn net.Conn
	err := inNetns(netns, func() (err error) {
		conn, err = (&net.Dialer{}).DialContext(ctx, network, address)
		return err
	})
	return conn, err
}

// ListenIn listens on address over network from inside the network namespace pinned at netns,
// as DialIn connects: the listener belongs to the pod's network, no thread stays in it.
func ListenIn(netns, network, address string) (net.Listener, error) {
	var l net.Listener
	err := inNetns(netns, func() (err error) {
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}

// inNetns runs fn on a throwaway thread that entered the network namespace pinned at netns.
func inNetns(netns string, fn func() error) error {
	return onThrowawayThread(func() error {
		f, err := os.Open(netns)
		if err != nil {
			return fmt.Errorf("pod network namespace: %w", err)
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("enter the pod's network namespace: %w", err)
		}
		return fn()
	})
}
