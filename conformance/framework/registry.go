package framework

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// RegistryBinary is the registry the specs of registry images start: Debian's docker-registry
// package, the CNCF distribution registry.
const RegistryBinary = "/usr/bin/docker-registry"

// Registry is a registry the harness runs for the specs of registry images: docker-registry on
// 127.0.0.1 and a free port, over plain HTTP and without credentials (a loopback registry, which
// a runtime pulls from as it is: docs/runtime-interface.md), with a storage directory of its own
// and its access log kept, so that a spec can tell which requests a runtime made (Requests).
type Registry struct {
	// Host is 127.0.0.1:PORT.
	Host string
	// Storage is its storage directory (docker/registry/v2/... below it).
	Storage string

	config, log string
	cmd         *exec.Cmd
	done        chan struct{}
}

// StartRegistry starts a registry whose files (configuration, storage, log) are under dir.
// The caller stops it (Stop), failed spec or not.
func StartRegistry(dir string) (*Registry, error) { return StartRegistryWith(dir, nil) }

// StartRegistryWith is StartRegistry with more configuration: extra, given the registry's
// HOST:PORT, returns YAML appended to the configuration after `http: addr:` (an `http` key
// such as `  tls:`, then top-level keys such as `auth:`), e.g. TLS and basic auth for the Go
// tests of internal/registrytest.
func StartRegistryWith(dir string, extra func(host string) (string, error)) (*Registry, error) {
	if _, err := os.Stat(RegistryBinary); err != nil {
		return nil, fmt.Errorf("the specs of registry images run a registry on 127.0.0.1: %s is missing (Debian: apt-get install docker-registry): %w", RegistryBinary, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := FreeLoopbackPort()
	if err != nil {
		return nil, fmt.Errorf("find a free port: %w", err)
	}
	r := &Registry{Host: fmt.Sprintf("127.0.0.1:%d", port), Storage: filepath.Join(dir, "storage"),
		config: filepath.Join(dir, "config.yml"), log: filepath.Join(dir, "registry.log")}
	// The access log (Apache's combined format, one line per request) is on by default; the
	// level keeps the application log to what explains a failure.
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\nhttp:\n  addr: %s\n", r.Storage, r.Host)
	if extra != nil {
		more, err := extra(r.Host)
		if err != nil {
			return nil, err
		}
		cfg += more
	}
	if err := os.WriteFile(r.config, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	return r, r.start()
}

func (r *Registry) start() error {
	log, err := os.OpenFile(r.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	r.cmd = exec.Command(RegistryBinary, "serve", r.config)
	r.cmd.Stdout, r.cmd.Stderr = log, log
	if err := r.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", RegistryBinary, err)
	}
	r.done = make(chan struct{})
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if Accepts(r.Host) {
			return nil
		}
		select {
		case <-r.done:
			data, _ := os.ReadFile(r.log)
			return fmt.Errorf("%s exited at start: %s", RegistryBinary, data)
		default:
		}
		if time.Now().After(deadline) {
			r.Stop()
			return fmt.Errorf("%s does not listen on %s within 20s", RegistryBinary, r.Host)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the registry (its own process, by PID) and waits for it: its address then refuses
// connections. Stopping a stopped registry does nothing.
func (r *Registry) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Kill()
	<-r.done
}

// Ref is the registry reference of a repository path and tag (or @digest) in this registry.
func (r *Registry) Ref(pathAndTag string) string { return r.Host + "/" + pathAndTag }

// Push pushes the image of the OCI layout layoutDir tagged tag (its org.opencontainers.image.
// ref.name annotation) to ref (HOST/PATH:TAG), with go-containerregistry's registry client, and
// returns the image manifest's digest. Pushing another image to the same ref moves the tag.
func (r *Registry) Push(ctx context.Context, layoutDir, tag, ref string) (string, error) {
	img, err := layoutImage(layoutDir, tag)
	if err != nil {
		return "", err
	}
	nref, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(nref, img, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	d, err := img.Digest()
	return d.String(), err
}

// layoutImage is the image of a layout that tag names.
func layoutImage(dir, tag string) (v1.Image, error) {
	p, err := layout.FromPath(dir)
	if err != nil {
		return nil, err
	}
	idx, err := p.ImageIndex()
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		if d.Annotations[ocispec.AnnotationRefName] == tag {
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("layout %s: no image tagged %q", dir, tag)
}

// BlobData is the file of the registry's storage holding the blob digest (sha256:HEX): the
// registry serves its bytes as they are, so a spec can make it serve content that does not
// match its digest.
func (r *Registry) BlobData(digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	if len(hex) < 2 {
		return ""
	}
	return filepath.Join(r.Storage, "docker", "registry", "v2", "blobs", "sha256", hex[:2], hex, "data")
}

// RegistryRequest is one request the registry answered, from its access log.
type RegistryRequest struct {
	Method string
	// Path is the request's path, e.g. /v2/NAME/manifests/TAG or /v2/NAME/blobs/sha256:HEX.
	Path   string
	Status int
}

func (q RegistryRequest) String() string { return fmt.Sprintf("%s %s %d", q.Method, q.Path, q.Status) }

// accessLine is a request line of the access log, in Apache's combined format:
// 127.0.0.1 - - [DATE] "GET /v2/... HTTP/1.1" 200 SIZE "REFERER" "USER-AGENT".
var accessLine = regexp.MustCompile(`^\S+ \S+ \S+ \[[^]]*\] "([A-Z]+) (\S+) HTTP/[0-9.]+" ([0-9]{3}) `)

// registrySettle is how long Requests waits for the registry to log the requests it has
// answered: it writes a request's line once the response is sent, so a client may have its
// answer a moment before.
const registrySettle = 300 * time.Millisecond

// Requests returns every request the registry answered so far, oldest first.
func (r *Registry) Requests() ([]RegistryRequest, error) {
	time.Sleep(registrySettle)
	f, err := os.Open(r.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []RegistryRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := accessLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		status, _ := strconv.Atoi(m[3])
		out = append(out, RegistryRequest{Method: m[1], Path: m[2], Status: status})
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		return nil, err
	}
	return out, nil
}

// RequestsFor returns the requests since the first since ones (a count Requests returned
// earlier) that concern the repository path repo: its manifests, tags and blobs.
func (r *Registry) RequestsFor(repo string, since int) ([]RegistryRequest, error) {
	all, err := r.Requests()
	if err != nil {
		return nil, err
	}
	var out []RegistryRequest
	for i, q := range all {
		if i >= since && strings.HasPrefix(q.Path, "/v2/"+repo+"/") {
			out = append(out, q)
		}
	}
	return out, nil
}

// PlatformImage is an image of a layout (by tag) and the platform a multi-platform index names
// it for.
type PlatformImage struct {
	Layout, Tag      string
	OS, Architecture string
}

// PushIndex pushes a multi-platform image index (OCI) listing images, in order, each under its
// platform, to ref, and returns the digests of their image manifests, in order.
func (r *Registry) PushIndex(ctx context.Context, ref string, images ...PlatformImage) ([]string, error) {
	var adds []mutate.IndexAddendum
	var digests []string
	for _, pi := range images {
		img, err := layoutImage(pi.Layout, pi.Tag)
		if err != nil {
			return nil, err
		}
		d, err := img.Digest()
		if err != nil {
			return nil, err
		}
		digests = append(digests, d.String())
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: pi.OS, Architecture: pi.Architecture}}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	nref, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		return nil, err
	}
	if err := remote.WriteIndex(nref, idx, remote.WithContext(ctx)); err != nil {
		return nil, fmt.Errorf("push the index %s: %w", ref, err)
	}
	return digests, nil
}
