//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// storeWithPods makes a state root of n pods named p0000…, created as `run` creates them
// (store.CreatePod) but with no supervisor and no container: what `list` and `status` read
// of a pod is its directory. This process is their creator, so a verb that finds no
// supervisor leaves them alone (supervisor.Ensure) while it runs.
func storeWithPods(tb testing.TB, n int) (root string, names []string) {
	tb.Helper()
	root = tb.TempDir()
	s, err := store.Open(root)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("p%04d", i)
		pod := &v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: name, Labels: map[string]string{"app": "scale"}},
			Spec: v1alpha1.PodSpec{Containers: []v1alpha1.Container{{Name: "app", Image: "oci:/nonexistent", Command: []string{"sleep", "3600"}}}}}
		if _, err := s.CreatePod(pod, nil, nil); err != nil {
			tb.Fatal(err)
		}
		names = append(names, name)
	}
	return root, names
}

// fileOpens counts the files opened in each watched directory, through inotify (IN_OPEN):
// "pod/file" → opens.
type fileOpens struct {
	fd  int
	wds map[int32]string
}

func watchOpens(t *testing.T, root string, pods []string) *fileOpens {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	w := &fileOpens{fd: fd, wds: map[int32]string{}}
	for _, p := range pods {
		// The closes are watched too, only so that the kernel does not merge two opens of a
		// file in a row into one event.
		wd, err := unix.InotifyAddWatch(fd, filepath.Join(root, "pods", p), unix.IN_OPEN|unix.IN_CLOSE)
		if err != nil {
			t.Fatal(err)
		}
		w.wds[int32(wd)] = p
	}
	return w
}

// take returns the opens seen since the last call.
func (w *fileOpens) take(t *testing.T) map[string]int {
	t.Helper()
	opens := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			return opens
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflowed: opens were lost")
			}
			if pod, ok := w.wds[ev.Wd]; ok && ev.Mask&unix.IN_OPEN != 0 {
				opens[pod+"/"+name]++
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// TestListReadsEachPodOnceAndStatusNoOtherPod holds `list` and `status` to costs that do not
// grow faster than issue 31 allows with the number of pods on the host: `status POD` opens no
// file of another pod (its cost does not depend on how many there are), and `list` opens each
// pod's state once (it decoded every state twice, whole, before: 2.56 s at 1,000 pods).
// Counted with inotify, not timed; BenchmarkListAndStatus gives the times.
func TestListReadsEachPodOnceAndStatusNoOtherPod(t *testing.T) {
	root, pods := storeWithPods(t, 12)
	c := cmdline{t: t, root: root}
	w := watchOpens(t, root, pods)

	out, code := c.run("list")
	var list []listEntry
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != len(pods) {
		t.Fatalf("list: exit %d, %s; want the %d pods", code, out, len(pods))
	}
	opens := w.take(t)
	for _, p := range pods {
		if n := opens[p+"/"+store.StateFile]; n != 1 {
			t.Errorf("list opened %s's %s %d times, want once", p, store.StateFile, n)
		}
	}
	for f, n := range opens {
		if n > 1 {
			t.Errorf("list opened %s %d times, want at most once", f, n)
		}
	}

	target := pods[5]
	if out, code := c.run("status", target); code != 0 || !strings.Contains(out, `"phase":"Pending"`) {
		t.Fatalf("status %s: exit %d, %s", target, code, out)
	}
	opens = w.take(t)
	if len(opens) == 0 {
		t.Fatal("status opened no file of its pod: the inotify watch sees nothing")
	}
	for f := range opens {
		if !strings.HasPrefix(f, target+"/") {
			t.Errorf("status %s opened %s, a file of another pod", target, f)
		}
	}
}

// BenchmarkListAndStatus times `list` and `status` of one pod, in process, on state roots of
// 10, 100 and 1,000 pods made as in TestListReadsEachPodOnceAndStatusNoOtherPod; `list`
// reports its time per pod (ns/pod), which stays flat when it grows as the number of pods.
//
//	go test ./cmd/podspec -run '^$' -bench ListAndStatus -benchtime 20x
func BenchmarkListAndStatus(b *testing.B) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	for _, n := range []int{10, 100, 1000} {
		root, pods := storeWithPods(b, n)
		verb := func(b *testing.B, args ...string) {
			stdout := os.Stdout
			os.Stdout = devnull
			defer func() { os.Stdout = stdout }()
			for b.Loop() {
				cmd := newRootCmd()
				cmd.SetArgs(append([]string{"--root", root}, args...))
				cmd.SetErr(&bytes.Buffer{})
				if err := cmd.Execute(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(fmt.Sprintf("list/pods=%d", n), func(b *testing.B) {
			verb(b, "list")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/pod")
		})
		b.Run(fmt.Sprintf("status/pods=%d", n), func(b *testing.B) { verb(b, "status", pods[n/2]) })
	}
}
