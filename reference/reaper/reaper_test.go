package reaper

import (
	"bufio"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWatchFollowsAGrandchildThatBecomesAChild: a watched process that is still the child of
// one of this process's children (as a container's process is the OCI runtime invocation's
// until it exits) is waited for until it is reparented to this subreaper, and its real exit
// status is reported, not an unknown one.
func TestWatchFollowsAGrandchildThatBecomesAChild(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Start(ctx)
	if err != nil {
		t.Skipf("cannot become a subreaper: %v", err)
	}
	// The child starts the grandchild, prints its pid, and exits 300 ms later; the grandchild
	// exits 7 after 600 ms, by then this process's child.
	child := exec.Command("sh", "-c", `sh -c 'sleep 0.6; exit 7' & echo $!; sleep 0.3`)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	exit := r.Watch(pid)
	if err := child.Wait(); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-exit:
		if !st.Known || st.Status.ExitStatus() != 7 {
			t.Errorf("exit of the grandchild: known %v, status %d; want known, 7", st.Known, st.Status.ExitStatus())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the grandchild's exit was never reported")
	}
}
