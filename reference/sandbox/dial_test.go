package sandbox

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHOOK015_DialInConnectsInsideThePodsNetworkNamespace checks that DialIn reaches a
// listener on the pod's loopback, not one on the host's, and leaves no thread of the process
// in the pod's namespace.
func TestHOOK015_DialInConnectsInsideThePodsNetworkNamespace(t *testing.T) {
	needRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base := t.TempDir()
	t.Cleanup(func() { checkNoMounts(t, base) })
	sb, err := Create(ctx, nil, filepath.Join(base, "sandbox"), "dialpod", "uid-dial")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = sb.Destroy(context.Background()) })
	netns := sb.NamespacePaths()["network"]

	inPod, err := ListenIn(netns, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen in the pod: %v", err)
	}
	defer inPod.Close()
	onHost, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer onHost.Close()

	c, err := DialIn(ctx, netns, "tcp", inPod.Addr().String())
	if err != nil {
		t.Fatalf("dial the pod's listener from its namespace: %v", err)
	}
	c.Close()
	if c, err := DialIn(ctx, netns, "tcp", onHost.Addr().String()); err == nil {
		c.Close()
		// The pod's loopback has no listener on that port unless the two ports collide.
		if onHost.Addr().(*net.TCPAddr).Port != inPod.Addr().(*net.TCPAddr).Port {
			t.Errorf("dial %s reached the host's listener from the pod's namespace", onHost.Addr())
		}
	}

	var pin unix.Stat_t
	if err := unix.Stat(netns, &pin); err != nil {
		t.Fatal(err)
	}
	// A locked thread ends after its goroutine returned, so give the two threads that joined
	// the namespace (the listener's and the dial's) a moment to be gone.
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left = left[:0]
		tasks, _ := filepath.Glob("/proc/self/task/*/ns/net")
		for _, task := range tasks {
			var st unix.Stat_t
			if unix.Stat(task, &st) == nil && st.Ino == pin.Ino && st.Dev == pin.Dev {
				link, _ := os.Readlink(task)
				left = append(left, task+" ("+link+")")
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, task := range left {
		t.Errorf("thread %s is still in the pod's network namespace", task)
	}
}
