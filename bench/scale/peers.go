package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/moby/sys/mountinfo"
	"golang.org/x/sys/unix"

	"podspec.dev/podspec/adapters/podman"
	"podspec.dev/podspec/reference/reaper"
)

// containerdSystem runs the containers through Debian's containerd, started by the benchmark on
// a private root, state directory and socket, driven with `ctr` in a namespace of its own: one
// containerd-shim-runc-v2 per container, each container its own pod.
type containerdSystem struct {
	dir, sock, image string
	parallel         int
	daemon           *exec.Cmd
	ids              []string
	rounds           int
}

func newContainerd(ctx context.Context, work, layout string, parallel int) (*containerdSystem, error) {
	for _, b := range []string{"containerd", "ctr", "containerd-shim-runc-v2"} {
		if _, err := exec.LookPath(b); err != nil {
			return nil, err
		}
	}
	c := &containerdSystem{dir: filepath.Join(work, "containerd"), parallel: parallel, image: "localhost/scale/busybox:latest"}
	c.sock = filepath.Join(c.dir, "c.sock")
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	config := filepath.Join(c.dir, "config.toml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = %q
[ttrpc]
  address = %q
`, filepath.Join(c.dir, "root"), filepath.Join(c.dir, "state"), c.sock, c.sock+".ttrpc")), 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(c.dir, "containerd.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	c.daemon = exec.Command("containerd", "--config", config)
	c.daemon.Stdout, c.daemon.Stderr = logf, logf
	c.daemon.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := reaper.StartCmd(c.daemon); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.close()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := c.ctr(ctx, "version"); err == nil {
			break
		} else if time.Now().After(deadline) {
			return nil, fmt.Errorf("containerd did not answer in 30 s: %w", err)
		}
	}
	archive := filepath.Join(c.dir, "busybox.tar")
	if err := tarDir(layout, archive); err != nil {
		return nil, err
	}
	if _, err := c.ctr(ctx, "images", "import", "--base-name", "localhost/scale/busybox", archive); err != nil {
		return nil, err
	}
	out, err := c.ctr(ctx, "images", "ls", "-q")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(out, c.image) {
		return nil, fmt.Errorf("containerd: the imported image is not %s but %q", c.image, strings.TrimSpace(out))
	}
	ok = true
	return c, nil
}

func (c *containerdSystem) name() string { return "containerd" }

func (c *containerdSystem) ctr(ctx context.Context, args ...string) (string, error) {
	return command(ctx, "ctr", append([]string{"--address", c.sock, "--namespace", "scale"}, args...)...)
}

func (c *containerdSystem) start(ctx context.Context, n int) error {
	c.rounds++
	c.ids = make([]string, n)
	return fanOut(n, c.parallel, func(i int) error {
		id := fmt.Sprintf("ctrd%d-%04d", c.rounds, i)
		if _, err := c.ctr(ctx, "run", "--detach", "--null-io", "--snapshotter", "overlayfs", c.image, id, "sleep", "3600"); err != nil {
			return err
		}
		c.ids[i] = id
		return nil
	})
}

func (c *containerdSystem) signal(ctx context.Context) error {
	return fanOut(len(c.ids), c.parallel, func(i int) error {
		_, err := c.ctr(ctx, "task", "kill", "--signal", "SIGHUP", c.ids[i])
		return err
	})
}

func (c *containerdSystem) exec(ctx context.Context) error {
	return fanOut(len(c.ids), c.parallel, func(i int) error {
		_, err := c.ctr(ctx, "task", "exec", "--exec-id", "scale", c.ids[i], "true")
		return err
	})
}

func (c *containerdSystem) perPod() ([]int, error) {
	return pidsOf("containerd-shim-runc-v2", c.sock), nil
}

func (c *containerdSystem) remove(ctx context.Context) error {
	return fanOut(len(c.ids), c.parallel, func(i int) error {
		if c.ids[i] == "" {
			return nil
		}
		if _, err := c.ctr(ctx, "task", "delete", "--force", c.ids[i]); err != nil && !strings.Contains(err.Error(), "not found") {
			return err
		}
		_, err := c.ctr(ctx, "container", "delete", c.ids[i])
		return err
	})
}

func (c *containerdSystem) leftovers() []string {
	var left []string
	if out, _ := c.ctr(context.Background(), "container", "ls", "-q"); len(strings.TrimSpace(out)) > 0 {
		left = append(left, fmt.Sprintf("%d containers", len(strings.Fields(out))))
	}
	if pids := pidsOf("containerd-shim-runc-v2", c.sock); len(pids) > 0 {
		left = append(left, fmt.Sprintf("%d shims", len(pids)))
	}
	if mounts, _ := mountinfo.GetMounts(mountinfo.PrefixFilter(filepath.Join(c.dir, "state"))); len(mounts) > 0 {
		left = append(left, fmt.Sprintf("%d mounts", len(mounts)))
	}
	return left
}

func (c *containerdSystem) close() {
	if c.daemon != nil && c.daemon.Process != nil {
		c.remove(context.Background())
		c.daemon.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { reaper.WaitCmd(c.daemon); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			c.daemon.Process.Kill()
			<-done
		}
		c.daemon = nil
	}
	for _, pid := range pidsOf("containerd-shim-runc-v2", c.sock) {
		unix.Kill(pid, unix.SIGKILL)
	}
	unmountBelow(c.dir)
}

// podmanSystem runs each pod as a podman pod (with its infra container, as `podman pod create`
// makes it) holding one container, on a private storage root and run root: one conmon per
// container.
type podmanSystem struct {
	dir, image string
	global     []string
	parallel   int
	pods       []string
	rounds     int
}

func newPodman(ctx context.Context, work, layout string, parallel int) (*podmanSystem, error) {
	if _, err := exec.LookPath("podman"); err != nil {
		return nil, err
	}
	p := &podmanSystem{dir: filepath.Join(work, "podman"), parallel: parallel, image: "localhost/scale/busybox:latest"}
	p.global = []string{"--root", filepath.Join(p.dir, "root"), "--runroot", filepath.Join(p.dir, "run"),
		"--storage-driver", "overlay", "--runtime", "runc"}
	// As the podman adapter runs it (adapters/podman), with runc as the OCI runtime, as podspec's
	// and the floor's.
	for _, d := range []string{"tmp", "net", "cwd"} {
		if err := os.MkdirAll(filepath.Join(p.dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(p.dir, "containers.conf"), []byte(podman.ContainersConf(p.dir)), 0o600); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			p.close()
		}
	}()
	if _, err := p.podman(ctx, "pull", "--quiet", "oci:"+layout); err != nil {
		return nil, err
	}
	out, err := p.podman(ctx, "images", "--quiet", "--no-trunc")
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(out)
	if _, err := p.podman(ctx, "tag", id, p.image); err != nil {
		return nil, err
	}
	// The infra image is built at the first pod: not in any measured start.
	if _, err := p.podman(ctx, "pod", "create", "--name", "warm", "--network", "none"); err != nil {
		return nil, err
	}
	if _, err := p.podman(ctx, "pod", "rm", "--force", "warm"); err != nil {
		return nil, err
	}
	ok = true
	return p, nil
}

func (p *podmanSystem) name() string { return "podman" }

func (p *podmanSystem) podman(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "podman", append(append([]string{}, p.global...), args...)...)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+filepath.Join(p.dir, "containers.conf"))
	cmd.Dir = filepath.Join(p.dir, "cwd") // conmon writes its files into its working directory
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := reaper.RunCmd(cmd); err != nil {
		return out.String(), fmt.Errorf("podman %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (p *podmanSystem) start(ctx context.Context, n int) error {
	p.rounds++
	p.pods = make([]string, n)
	return fanOut(n, p.parallel, func(i int) error {
		pod := fmt.Sprintf("pm%d-%04d", p.rounds, i)
		if _, err := p.podman(ctx, "pod", "create", "--name", pod, "--network", "none"); err != nil {
			return err
		}
		p.pods[i] = pod
		_, err := p.podman(ctx, "run", "--detach", "--pod", pod, "--name", pod+"-app", p.image, "sleep", "3600")
		return err
	})
}

func (p *podmanSystem) signal(ctx context.Context) error {
	return fanOut(len(p.pods), p.parallel, func(i int) error {
		_, err := p.podman(ctx, "kill", "--signal", "HUP", p.pods[i]+"-app")
		return err
	})
}

func (p *podmanSystem) exec(ctx context.Context) error {
	return fanOut(len(p.pods), p.parallel, func(i int) error {
		_, err := p.podman(ctx, "exec", p.pods[i]+"-app", "true")
		return err
	})
}

func (p *podmanSystem) perPod() ([]int, error) { return pidsOf("conmon", p.dir), nil }

func (p *podmanSystem) remove(ctx context.Context) error {
	return fanOut(len(p.pods), p.parallel, func(i int) error {
		if p.pods[i] == "" {
			return nil
		}
		_, err := p.podman(ctx, "pod", "rm", "--force", "--time", "0", p.pods[i])
		return err
	})
}

func (p *podmanSystem) leftovers() []string {
	var left []string
	if out, _ := p.podman(context.Background(), "ps", "--all", "--quiet"); len(strings.TrimSpace(out)) > 0 {
		left = append(left, fmt.Sprintf("%d containers", len(strings.Fields(out))))
	}
	if out, _ := p.podman(context.Background(), "pod", "ps", "--quiet"); len(strings.TrimSpace(out)) > 0 {
		left = append(left, fmt.Sprintf("%d pods", len(strings.Fields(out))))
	}
	if pids := pidsOf("conmon", p.dir); len(pids) > 0 {
		left = append(left, fmt.Sprintf("%d conmon processes", len(pids)))
	}
	return left
}

func (p *podmanSystem) close() {
	ctx := context.Background()
	if out, err := p.podman(ctx, "pod", "ps", "--quiet"); err == nil && strings.TrimSpace(out) != "" {
		p.podman(ctx, append([]string{"pod", "rm", "--force"}, strings.Fields(out)...)...)
	}
	p.podman(ctx, "system", "reset", "--force")
	for _, pid := range pidsOf("conmon", p.dir) {
		unix.Kill(pid, unix.SIGKILL)
	}
	unmountBelow(p.dir)
}

// unmountBelow detaches every mount below dir, deepest first: what a peer left after a failure.
func unmountBelow(dir string) {
	mounts, _ := mountinfo.GetMounts(mountinfo.PrefixFilter(dir))
	sort.Slice(mounts, func(a, b int) bool { return len(mounts[a].Mountpoint) > len(mounts[b].Mountpoint) })
	for _, m := range mounts {
		unix.Unmount(m.Mountpoint, unix.MNT_DETACH)
	}
}

// tarDir writes the files of dir (an OCI layout) into a tar archive at file, with paths
// relative to dir: the OCI image archive `ctr images import` reads.
func tarDir(dir, file string) error {
	out, err := reaper.CombinedOutput(exec.Command("tar", "-C", dir, "-cf", file, "."))
	if err != nil {
		return fmt.Errorf("tar: %v: %s", err, out)
	}
	return nil
}
