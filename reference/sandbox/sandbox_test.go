package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/reference/oci"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (namespaces, mounts)")
	}
}

// checkNoMounts fails if anything is still mounted below dir.
func checkNoMounts(t *testing.T, dir string) {
	t.Helper()
	mounts, err := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mounts {
		t.Errorf("mount left behind: %q (%s from %s)", m.Mountpoint, m.FSType, m.Source)
	}
}

func TestCreateLoadDestroy(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	base := t.TempDir()
	t.Cleanup(func() { checkNoMounts(t, base) })
	dir := filepath.Join(base, "sandbox")
	sb, err := Create(ctx, nil, dir, "mypod", "uid-1234")
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { _ = sb.Destroy(ctx) })
	paths := sb.NamespacePaths()
	if len(paths) != 3 {
		t.Fatalf("namespace paths = %v, want network, ipc and uts", paths)
	}
	for typ, p := range paths {
		if !isNsfs(p) {
			t.Errorf("%s pin %s is not a namespace file", typ, p)
		}
		self, _ := os.Readlink("/proc/self/ns/" + filepath.Base(p))
		var st, selfSt unix.Stat_t
		if err := unix.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		if err := unix.Stat("/proc/self/ns/"+filepath.Base(p), &selfSt); err != nil {
			t.Fatal(err)
		}
		if st.Ino == selfSt.Ino {
			t.Errorf("%s pin is the test's own namespace %s, want a new one", typ, self)
		}
	}
	if got := sb.CgroupParent(); got != "/podspec/uid-1234" {
		t.Errorf("cgroup parent = %s", got)
	}
	if _, err := Create(ctx, nil, dir, "mypod", "uid-1234"); err == nil {
		t.Fatal("a second Create in the same directory succeeded")
	}

	loaded, err := Load(dir)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if loaded.PodName != "mypod" || loaded.PodUID != "uid-1234" || loaded.Dir != sb.Dir {
		t.Fatalf("loaded = %+v, want %+v", loaded, sb)
	}
	if err := loaded.Destroy(ctx); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	if err := sb.Destroy(ctx); err != nil {
		t.Fatalf("second destroy: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("sandbox dir still exists: %v", err)
	}
	if _, err := Load(dir); !errors.Is(err, ErrNotFound) {
		t.Fatalf("load after destroy: err = %v, want ErrNotFound", err)
	}
}

func TestCreateRejectsUnsafeNames(t *testing.T) {
	cases := []struct{ name, pod, uid string }{
		{"a pod name with a slash", "a/b", "u"},
		{"an upper-case pod name", "Pod", "u"},
		{"a pod UID with dot-dot", "p", "../x"},
		{"an empty pod UID", "p", ""},
		{"a pod UID starting with '-'", "p", "-x"},
		{"a pod UID of 129 characters", "p", strings.Repeat("u", 129)},
		{"a pod name of 64 characters", strings.Repeat("p", 64), "u"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sb")
			if _, err := Create(context.Background(), nil, dir, tc.pod, tc.uid); err == nil {
				t.Fatal("Create accepted it")
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a rejected Create left %s behind", dir)
			}
		})
	}
}

var subreaperOnce sync.Once

// TestContainersShareTheSandbox runs two containers joining the sandbox with runc and checks
// they see the pod's hostname, a loopback that is up, and the same namespaces.
func TestContainersShareTheSandbox(t *testing.T) {
	needRoot(t)
	if _, err := exec.LookPath(oci.DefaultBinary); err != nil {
		t.Skip("runc not installed")
	}
	if _, err := os.Stat("/bin/busybox"); err != nil {
		t.Skip("busybox-static not installed")
	}
	subreaperOnce.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()
	base := t.TempDir()
	rt := &oci.Runtime{Root: filepath.Join(base, "runc")}
	sb, err := Create(ctx, rt, filepath.Join(base, "sandbox"), "sharedpod", fmt.Sprintf("test-%d", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		list, _ := rt.List(ctx)
		for _, c := range list {
			_ = rt.Delete(ctx, c.ID, true)
		}
		if err := sb.Destroy(ctx); err != nil {
			t.Errorf("destroy: %v", err)
		}
		checkNoMounts(t, base)
		rmdirCgroupRoot()
		for _, ctrl := range []string{"memory", "pids", "cpu"} {
			if p, err := oci.CgroupFile(sb.CgroupParent(), ctrl, ""); err == nil {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("cgroup %s left behind", p)
				}
			}
		}
	})
	rootfs := filepath.Join(base, "rootfs")
	if err := os.MkdirAll(filepath.Join(rootfs, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyBusybox(t, filepath.Join(rootfs, "bin", "busybox"))
	for _, a := range []string{"sh", "hostname", "ip", "readlink", "cat"} {
		if err := os.Symlink("busybox", filepath.Join(rootfs, "bin", a)); err != nil {
			t.Fatal(err)
		}
	}
	var outputs []string
	for i := 0; i < 2; i++ {
		id := fmt.Sprintf("c%d", i)
		bundle := filepath.Join(base, id)
		if err := oci.WriteBundle(bundle, oci.ContainerConfig{
			Rootfs: rootfs, RootfsReadonly: true,
			Args:           []string{"sh", "-c", "hostname; cat /sys/class/net/lo/operstate /sys/class/net/lo/flags; readlink /proc/self/ns/net; readlink /proc/self/ns/ipc; readlink /proc/self/ns/uts"},
			JoinNamespaces: sb.NamespacePaths(),
			CgroupsPath:    sb.CgroupParent() + "/" + id,
		}); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(base, id+".out"))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := rt.Create(ctx, id, bundle, oci.IO{Stdout: out, Stderr: out})
		out.Close()
		if err != nil {
			t.Fatalf("create %s: %v", id, err)
		}
		if err := rt.Start(ctx, id); err != nil {
			t.Fatalf("start %s: %v", id, err)
		}
		var ws unix.WaitStatus
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || ws.ExitStatus() != 0 {
			t.Fatalf("wait %s: %v status %d", id, err, ws.ExitStatus())
		}
		if err := rt.Delete(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(base, id+".out"))
		outputs = append(outputs, string(b))
	}
	lines := strings.Split(strings.TrimSpace(outputs[0]), "\n")
	if len(lines) != 6 || lines[0] != "sharedpod" {
		t.Fatalf("container output %q: want the pod's hostname first", outputs[0])
	}
	var flags uint64
	if _, err := fmt.Sscanf(lines[2], "0x%x", &flags); err != nil || flags&unix.IFF_UP == 0 {
		t.Errorf("lo flags %q: want IFF_UP set", lines[2])
	}
	if outputs[0] != outputs[1] {
		t.Errorf("the two containers saw different sandboxes:\n%s\n%s", outputs[0], outputs[1])
	}
}

func copyBusybox(t *testing.T, dst string) {
	t.Helper()
	in, err := os.Open("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// rmdirCgroupRoot removes the shared CgroupRoot directory in every hierarchy if it is empty
// (non-recursive: a pod of another test keeps it).
func rmdirCgroupRoot() {
	hs, err := oci.CgroupHierarchies()
	if err != nil {
		return
	}
	for _, h := range hs {
		_ = unix.Rmdir(filepath.Join(h.Mountpoint, CgroupRoot))
	}
}
