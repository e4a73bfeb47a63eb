// Command pull measures what running a real image from a registry costs (issue 27, item 6),
// side by side in one run, and prints a Markdown report:
//
//   - pull: the Debian image of internal/debianimage (bookworm with nginx, curl and Python, one
//     uncompressed layer) pushed to Debian's docker-registry on 127.0.0.1, pulled cold (nothing
//     held: a fresh store each time) and warm (everything held: the same store again) by
//     `podspec image pull`, `skopeo copy` into an OCI layout and `podman pull` (into a storage
//     root of its own), the tools' order alternating round by round;
//   - start→ready: a pod of that image's nginx, its port 80 published on 127.0.0.1, from the
//     start of `podspec run --detach --publish` (or of `podman pod create -p` then `podman run
//     -d --pod`) until GET / through the published port answers 200; the image held by both.
//
// Usage (as root; docker-registry, skopeo, podman and mmdebstrap installed):
//
//	go build -o bin/ ./cmd/podspec ./cmd/podspec-supervisor && go run ./bench/pull -podspec bin/podspec
//
// It never asserts on times; it reports them. All traffic goes to 127.0.0.1.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/adapters/podman"
	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/bench/internal/podroot"
	"podspec.dev/podspec/bench/internal/timing"
	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/internal/debianimage"
)

func main() {
	var c config
	flag.StringVar(&c.bin, "podspec", "bin/podspec", "podspec binary")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds of each measurement")
	flag.Parse()
	if err := c.run(); err != nil {
		fmt.Fprintln(os.Stderr, "pull:", err)
		os.Exit(1)
	}
}

type config struct {
	bin    string
	rounds int
	work   string
	ref    string
}

// podmanIn runs podman on a store of its own under dir as the podman adapter runs it: its
// containers.conf (rlimits within this host's, cgroupfs, a file event log) and runc as the OCI
// runtime, as podspec's runs use.
func podmanIn(dir string, args ...string) error {
	conf := filepath.Join(dir, "containers.conf")
	if _, err := os.Stat(conf); err != nil {
		if err := os.WriteFile(conf, []byte(podman.ContainersConf(dir)), 0o600); err != nil {
			return err
		}
	}
	c := exec.Command("podman", append([]string{"--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "run"), "--runtime", "runc"}, args...)...)
	c.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("podman %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// timed runs f and returns how long it took.
func timed(f func() error) (time.Duration, error) {
	t0 := time.Now()
	err := f()
	return time.Since(t0), err
}

// puller is one tool's cold and warm pull: fresh makes an empty store, pull pulls into it.
type puller struct {
	name  string
	fresh func(round int) (string, error)
	pull  func(store string) error
	clean func(store string)
}

func (c *config) run() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "podspec-pull-")
	if err != nil {
		return err
	}
	c.work = work
	defer os.RemoveAll(work)

	cache, err := debianimage.DefaultCache()
	if err != nil {
		return err
	}
	layout, err := debianimage.Layout(cache)
	if err != nil {
		return err
	}
	reg, err := framework.StartRegistry(filepath.Join(work, "registry"))
	if err != nil {
		return err
	}
	defer reg.Stop()
	c.ref = reg.Ref("debian/nginx:" + debianimage.Suite)
	digest, err := reg.Push(context.Background(), layout, debianimage.Suite, c.ref)
	if err != nil {
		return err
	}
	size, err := layerBytes(layout)
	if err != nil {
		return err
	}
	hostname, _ := os.Hostname()
	fmt.Printf("date: %s\nhost: %s, %d CPUs, kernel %s\nload average before: %s\nimage: %s (%s), %.0f MiB in one uncompressed layer\n%s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), hostname, host.NumCPU(), host.Kernel(), host.Loadavg(),
		c.ref, digest, float64(size)/(1<<20), versions())

	if err := c.pulls(); err != nil {
		return err
	}
	if err := c.starts(); err != nil {
		return err
	}
	fmt.Printf("\nload average after: %s\n", host.Loadavg())
	return nil
}

// layerBytes is the size of the layout's blobs, the layer being nearly all of it.
func layerBytes(layout string) (int64, error) {
	var total int64
	err := filepath.Walk(filepath.Join(layout, "blobs"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
		return err
	})
	return total, err
}

// versions names the tools' versions.
func versions() string {
	var out []string
	for _, v := range [][]string{{"skopeo", "--version"}, {"podman", "--version"}} {
		b, err := exec.Command(v[0], v[1:]...).Output()
		if err == nil {
			out = append(out, strings.TrimSpace(string(b)))
		}
	}
	return strings.Join(out, ", ")
}

// shortDir is a directory for a podman store: podman refuses a runroot longer than 50
// characters, which a directory under the work directory may be.
func shortDir(int) (string, error) { return os.MkdirTemp("/tmp", "pb") }

func (c *config) pullers() []puller {
	dir := func(prefix string) func(int) (string, error) {
		return func(round int) (string, error) {
			return os.MkdirTemp(c.work, fmt.Sprintf("%s-%d-", prefix, round))
		}
	}
	return []puller{
		{"podspec image pull", dir("podspec"),
			func(root string) error { return podroot.Root{Bin: c.bin, Dir: root}.Podspec("image", "pull", c.ref) },
			func(root string) { os.RemoveAll(root) }},
		{"skopeo copy (to an OCI layout)", dir("skopeo"),
			func(d string) error {
				return podroot.Run("skopeo", "copy", "--src-tls-verify=false", "docker://"+c.ref, "oci:"+filepath.Join(d, "layout")+":"+debianimage.Suite)
			},
			func(d string) { os.RemoveAll(d) }},
		{"podman pull", shortDir,
			func(d string) error { return podmanIn(d, "pull", "--quiet", "--tls-verify=false", c.ref) },
			func(d string) {
				// podman's overlay storage holds mounts: its own reset unmounts and removes them.
				podmanIn(d, "system", "reset", "--force")
				os.RemoveAll(d)
			}},
	}
}

func (c *config) pulls() error {
	ps := c.pullers()
	cold := make([][]float64, len(ps))
	warm := make([][]float64, len(ps))
	for round := range c.rounds {
		order := make([]int, len(ps))
		for i := range order {
			order[i] = (i + round) % len(ps)
		}
		for _, k := range order {
			p := ps[k]
			store, err := p.fresh(round)
			if err != nil {
				return err
			}
			d, err := timed(func() error { return p.pull(store) })
			if err != nil {
				p.clean(store)
				return err
			}
			cold[k] = append(cold[k], d.Seconds())
			d, err = timed(func() error { return p.pull(store) })
			p.clean(store)
			if err != nil {
				return err
			}
			warm[k] = append(warm[k], d.Seconds())
		}
		fmt.Fprintf(os.Stderr, "pull round %d of %d done\n", round+1, c.rounds)
	}
	fmt.Printf("## Pull (%d rounds)\n\n", c.rounds)
	fmt.Println("| tool | cold s (min / median / max) | ÷ podspec (median) | warm s (min / median / max) | ÷ podspec (median) |")
	fmt.Println("|---|---|---|---|---|")
	_, psCold, _ := timing.Stats(cold[0])
	_, psWarm, _ := timing.Stats(warm[0])
	for k, p := range ps {
		clo, cmed, chi := timing.Stats(cold[k])
		wlo, wmed, whi := timing.Stats(warm[k])
		fmt.Printf("| %s | %.2f / %.2f / %.2f | %.2f | %.3f / %.3f / %.3f | %.2f |\n", p.name, clo, cmed, chi, cmed/psCold, wlo, wmed, whi, wmed/psWarm)
	}
	fmt.Println()
	return nil
}

// nginxPod is the podspec Pod of the start measurement.
const nginxPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: %s}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
    - name: nginx
      image: %s
      imagePullPolicy: IfNotPresent
      command: [nginx, -g, "daemon off;"]
`

// answers polls GET http://addr/ until it answers 200, for at most a minute, and returns when.
func answers(addr string) (time.Time, error) {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := client.Get("http://" + addr + "/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Now(), nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("%s did not answer within a minute", addr)
}

func (c *config) starts() error {
	root := podroot.Root{Bin: c.bin, Dir: filepath.Join(c.work, "podspec-root")}
	podmanDir, err := shortDir(0)
	if err != nil {
		return err
	}
	defer os.RemoveAll(podmanDir)
	podman := func(args ...string) error { return podmanIn(podmanDir, args...) }
	defer func() {
		root.RemoveAll()
		podman("system", "reset", "--force")
	}()
	// Both hold the image before the first start.
	if err := root.Podspec("image", "pull", c.ref); err != nil {
		return err
	}
	if err := podman("pull", "--quiet", "--tls-verify=false", c.ref); err != nil {
		return err
	}
	manifest := filepath.Join(c.work, "nginx.yaml")
	starts := map[string][]float64{}
	tools := []struct {
		name  string
		start func(name string, port int) error
		stop  func(name string) error
	}{
		{"podspec run --detach --publish", func(name string, port int) error {
			if err := os.WriteFile(manifest, []byte(fmt.Sprintf(nginxPod, name, c.ref)), 0o644); err != nil {
				return err
			}
			return root.Podspec("run", "--detach", "--publish", fmt.Sprintf("%d:80", port), manifest)
		}, func(name string) error { return root.Podspec("rm", "--force", name) }},
		{"podman pod create -p, podman run -d --pod", func(name string, port int) error {
			if err := podman("pod", "create", "--name", name, "-p", fmt.Sprintf("127.0.0.1:%d:80", port)); err != nil {
				return err
			}
			return podman("run", "-d", "--pod", name, "--name", name+"-nginx", c.ref, "nginx", "-g", "daemon off;")
		}, func(name string) error { return podman("pod", "rm", "--force", "--time", "0", name) }},
	}
	// measure starts tool k's pod and returns the seconds until nginx answered.
	measure := func(k int, name string) (float64, error) {
		t := tools[k]
		port, err := framework.FreeLoopbackPort()
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		ready := make(chan error, 1)
		var at time.Time
		go func() {
			var err error
			at, err = answers(fmt.Sprintf("127.0.0.1:%d", port))
			ready <- err
		}()
		if err := t.start(name, port); err != nil {
			<-ready
			t.stop(name)
			return 0, err
		}
		err = <-ready
		if stopErr := t.stop(name); err == nil {
			err = stopErr
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t.name, err)
		}
		return at.Sub(t0).Seconds(), nil
	}
	// The first start after the pull: podspec unpacks the image's layers then (its pull only
	// fetches and verifies them); podman unpacked them in its pull.
	first := make([]float64, len(tools))
	for k := range tools {
		if first[k], err = measure(k, fmt.Sprintf("nginx-first-%d", k)); err != nil {
			return err
		}
	}
	for round := range c.rounds {
		order := []int{0, 1}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, k := range order {
			d, err := measure(k, fmt.Sprintf("nginx-%d", round))
			if err != nil {
				return err
			}
			starts[tools[k].name] = append(starts[tools[k].name], d)
		}
		fmt.Fprintf(os.Stderr, "start round %d of %d done\n", round+1, c.rounds)
	}
	fmt.Printf("## Start → ready (%d rounds, image held)\n\n", c.rounds)
	fmt.Println("From the start of the command until GET / through the published port answers 200 (polled every 5 ms). The first start after the pull is apart: podspec unpacks the layers then, podman in its pull.")
	fmt.Println()
	fmt.Println("| runtime | first start s | ÷ podspec | then s (min / median / max) | ÷ podspec (median) |")
	fmt.Println("|---|---|---|---|---|")
	_, ps, _ := timing.Stats(starts[tools[0].name])
	for k, t := range tools {
		lo, med, hi := timing.Stats(starts[t.name])
		fmt.Printf("| %s | %.3f | %.2f | %.3f / %.3f / %.3f | %.2f |\n", t.name, first[k], first[k]/first[0], lo, med, hi, med/ps)
	}
	return nil
}
