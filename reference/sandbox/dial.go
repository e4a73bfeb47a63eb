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
	err := onThrowawayThread(func() error {
		f, err := os.Open(netns)
		if err != nil {
			return fmt.Errorf("pod network namespace: %w", err)
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("enter the pod's network namespace: %w", err)
		}
		conn, err = (&net.Dialer{}).DialContext(ctx, network, address)
		return err
	})
	return conn, err
}
