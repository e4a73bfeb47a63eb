package registry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/internal/registrytest"
	"podspec.dev/podspec/ocilayout"
)

// layout builds a one-image OCI layout; labels make images differ.
func layout(t *testing.T, label string) string {
	t.Helper()
	if _, err := os.Stat(ocilayout.BusyboxPath); err != nil {
		t.Skip("needs busybox-static")
	}
	tmp := t.TempDir()
	dir, src := filepath.Join(tmp, "layout"), filepath.Join(tmp, "label")
	if err := os.WriteFile(src, []byte(label), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := ocilayout.BuildOptions{Busybox: true, Files: []ocilayout.File{{Source: src, Dest: "/etc/label"}}, Labels: map[string]string{"label": label}, Cmd: []string{"sh"}}
	if _, err := ocilayout.Build(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newStore(t *testing.T) *Store {
	return &Store{Root: filepath.Join(t.TempDir(), "registry"), Keychain: nil, Timeout: 10 * time.Second}
}

// pullErr pulls and wants an error that names the image and holds the reason.
func pullErr(t *testing.T, s *Store, image string, policy v1alpha1.PullPolicy, reason string) {
	t.Helper()
	p, err := s.Pull(context.Background(), image, policy)
	var pe *Error
	if err == nil || !errors.As(err, &pe) || pe.Image != image || !strings.Contains(err.Error(), image) || !strings.Contains(err.Error(), reason) {
		t.Fatalf("Pull(%s) = %+v, %v; want an error naming the image with %q", image, p, err, reason)
	}
}

// Nothing a failed pull left is trusted: no layout, nothing under tmp/.
func assertNoLayout(t *testing.T, s *Store) {
	t.Helper()
	for _, d := range []string{"layouts", "tmp"} {
		if ents, _ := os.ReadDir(filepath.Join(s.Root, d)); len(ents) > 0 {
			t.Errorf("a failed pull left %s/%s", d, ents[0].Name())
		}
	}
}

func TestIMG015_APullPinsTheManifestAndTheStoreResolvesIt(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	want := reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	s := newStore(t)
	p, err := s.Pull(context.Background(), reg.Ref("app:v1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Digest != want || p.ImageID() != reg.Host+"/app@"+want {
		t.Errorf("pulled %s (%s), want %s", p.Digest, p.ImageID(), want)
	}
	img, err := ocilayout.Resolve(context.Background(), p.Layout, nil) // every blob verified (IMG-007)
	if err != nil || img.Digest != want || img.Config.Config.Labels["label"] != "one" {
		t.Fatalf("the store's layout resolves to %+v, %v", img, err)
	}
	// The tag moves: Always asks the registry again, and the first image stays as it was.
	moved := reg.Push(layout(t, "two"), reg.Ref("app:v1"))
	p2, err := s.Pull(context.Background(), reg.Ref("app:v1"), v1alpha1.PullAlways)
	if err != nil || p2.Digest != moved || moved == want {
		t.Fatalf("after the tag moved: %+v, %v; want %s", p2, err, moved)
	}
	if img, err := ocilayout.Resolve(context.Background(), p.Layout, nil); err != nil || img.Digest != want {
		t.Errorf("the first image is no longer held: %v", err)
	}
}

func TestIMG019_IMG020_IMG021_ThePolicyDecidesWhetherTheRegistryIsAsked(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	d := reg.Push(layout(t, "one"), reg.Ref("app:1.0"))
	s := newStore(t)
	ref := reg.Ref("app:1.0")
	pullErr(t, s, ref, v1alpha1.PullNever, "imagePullPolicy is Never and the image is not present")
	if _, err := s.Pull(context.Background(), ref, v1alpha1.PullIfNotPresent); err != nil {
		t.Fatal(err)
	}
	reg.Stop()
	for _, policy := range []v1alpha1.PullPolicy{v1alpha1.PullIfNotPresent, v1alpha1.PullNever, ""} { // "" is IfNotPresent for 1.0 (IMG-022)
		if p, err := s.Pull(context.Background(), ref, policy); err != nil || p.Digest != d {
			t.Errorf("%q with the registry stopped: %+v, %v", policy, p, err)
		}
	}
	if p, err := s.Pull(context.Background(), reg.Ref("app@"+d), v1alpha1.PullNever); err != nil || p.Digest != d {
		t.Errorf("by digest with the registry stopped: %+v, %v", p, err)
	}
	pullErr(t, s, ref, v1alpha1.PullAlways, "refused the connection")
}

func TestIMG017_EachFailureNamesTheImageAndItsReason(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	s := newStore(t)
	pullErr(t, s, reg.Ref("nothing:v1"), "", "has no image")
	pullErr(t, s, "registry.podspec.invalid/app:v1", "", "unknown registry host registry.podspec.invalid")
	reg.Stop()
	pullErr(t, s, reg.Ref("app:v1"), "", "refused the connection")
	assertNoLayout(t, s)
}

func TestIMG017_TLSAndBasicAuth(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{TLS: true})
	d := reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	dir := t.TempDir()
	t.Setenv("REGISTRY_AUTH_FILE", reg.AuthFile(dir, true))
	s := newStore(t)
	s.CertsDirs = []string{reg.CADir}
	pullErr(t, s, reg.Ref("app:v1"), "", "refused the credentials (401 Unauthorized)")
	t.Setenv("REGISTRY_AUTH_FILE", reg.AuthFile(dir, false))
	if p, err := s.Pull(context.Background(), reg.Ref("app:v1"), ""); err != nil || p.Digest != d {
		t.Fatalf("with the credentials: %+v, %v", p, err)
	}
	// Without the registry's CA the certificate is not trusted, and plain HTTP is no way round.
	s2 := newStore(t)
	s2.CertsDirs = []string{t.TempDir()}
	pullErr(t, s2, reg.Ref("app:v1"), "", "certificate")
}

// IMG-024: a registry that is not on loopback is not asked over plain HTTP unless named.
func TestIMG024_PlainHTTPOnlyForLoopbackOrNamedRegistries(t *testing.T) {
	s := &Store{Insecure: []string{"10.0.0.5:5000", "reg.lan"}}
	for host, want := range map[string]bool{"127.0.0.1:5000": true, "[::1]:5000": true, "localhost:5000": true, "a.localhost": true,
		"10.0.0.5:5000": true, "reg.lan:443": true, "10.0.0.6:5000": false, "192.168.1.2": false, "ghcr.io": false} {
		if got := s.plainHTTPAllowed(host); got != want {
			t.Errorf("plainHTTPAllowed(%s) = %v, want %v", host, got, want)
		}
	}
	rt, _ := s.transport("10.0.0.6:5000")
	_, err := rt.RoundTrip(httptest.NewRequest("GET", "http://10.0.0.6:5000/v2/", nil))
	if !errors.Is(err, errPlainHTTP) {
		t.Errorf("plain HTTP to 10.0.0.6:5000: %v, want refused", err)
	}
}

// proxy is a reverse proxy to a registry that counts layer blob GETs and can cut them off
// halfway, or send half and then stop answering.
type proxy struct {
	srv      *httptest.Server
	blobGets atomic.Int32
	truncate atomic.Bool
	stall    atomic.Bool
	trickle  atomic.Int64  // a layer blob is sent in four parts, each after this long (time.Duration)
	delay    atomic.Int64  // a layer blob's answer waits this long (time.Duration)
	released chan struct{} // closed when the test ends: a stalled answer ends then
}

func startProxy(t *testing.T, reg *registrytest.Registry) *proxy {
	p := &proxy{released: make(chan struct{})}
	u, _ := url.Parse("http://" + reg.Host)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // what the registry sent reaches the client at once
	rp.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method == http.MethodGet && strings.Contains(r.Request.URL.Path, "/blobs/") && r.ContentLength > 4096 {
			p.blobGets.Add(1)
			time.Sleep(time.Duration(p.delay.Load()))
			switch {
			case p.truncate.Load():
				r.Body = struct {
					io.Reader
					io.Closer
				}{io.LimitReader(r.Body, r.ContentLength/2), r.Body}
			case p.trickle.Load() > 0:
				r.Body = struct {
					io.Reader
					io.Closer
				}{&trickled{r: r.Body, part: r.ContentLength/4 + 1, pause: time.Duration(p.trickle.Load())}, r.Body}
			case p.stall.Load():
				r.Body = struct {
					io.Reader
					io.Closer
				}{io.MultiReader(io.LimitReader(r.Body, r.ContentLength/2), stalled{r.Request.Context(), p.released}), r.Body}
			}
		}
		return nil
	}
	p.srv = httptest.NewServer(rp)
	t.Cleanup(p.srv.Close)
	t.Cleanup(func() { close(p.released) }) // before Close, which waits for every answer
	return p
}

// trickled is a body sent in parts, each after a pause.
type trickled struct {
	r     io.Reader
	part  int64
	pause time.Duration
	left  int64 // of the part being sent
}

func (t *trickled) Read(b []byte) (int, error) {
	if t.left == 0 {
		time.Sleep(t.pause)
		t.left = t.part
	}
	n, err := t.r.Read(b[:min(int64(len(b)), t.left)])
	t.left -= int64(n)
	return n, err
}

// stalled is a body that sends nothing more until the client goes away or the test ends.
type stalled struct {
	ctx      context.Context
	released <-chan struct{}
}

func (s stalled) Read([]byte) (int, error) {
	select {
	case <-s.ctx.Done():
	case <-s.released:
	}
	return 0, io.ErrUnexpectedEOF
}

// proxiedImage pushes an image to a registry of its own and returns a proxy in front of it, the
// image's reference through the proxy and its digest.
func proxiedImage(t *testing.T) (px *proxy, ref, digest string) {
	reg := registrytest.Start(t, registrytest.Options{})
	digest = reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	px = startProxy(t, reg)
	return px, px.host() + "/app:v1", digest
}

func (p *proxy) host() string { return strings.TrimPrefix(p.srv.URL, "http://") }

func TestIMG018_ALayerCutOffMidwayIsNeverUsed(t *testing.T) {
	px, ref, d := proxiedImage(t)
	px.truncate.Store(true)
	s := newStore(t)
	_, err := s.Pull(context.Background(), ref, "")
	if err == nil || !strings.Contains(err.Error(), ref) {
		t.Fatalf("a cut-off layer: %v, want an error naming %s", err, ref)
	}
	assertNothingTrustedAfterTheFault(t, s, ref, d, func() { px.truncate.Store(false) })
}

// assertNothingTrustedAfterTheFault holds a store after a pull of ref failed midway: nothing of
// it is held, and once heal ended the fault the image (digest d) pulls whole (IMG-018).
func assertNothingTrustedAfterTheFault(t *testing.T, s *Store, ref, d string, heal func()) {
	t.Helper()
	assertNoLayout(t, s)
	if _, err := s.Lookup(mustParse(t, ref)); err == nil {
		t.Error("the half-pulled image is present")
	}
	pullErr(t, s, ref, v1alpha1.PullNever, "not present")
	heal()
	p, err := s.Pull(context.Background(), ref, "")
	if err != nil || p.Digest != d {
		t.Fatalf("the pull after the fault: %+v, %v", p, err)
	}
	if _, err := ocilayout.Resolve(context.Background(), p.Layout, nil); err != nil {
		t.Errorf("the layout of the pull after the fault: %v", err)
	}
}

func TestIMG017_AManifestThatDoesNotMatchItsDigest(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	d := reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	hexd := strings.TrimPrefix(d, "sha256:")
	data := filepath.Join(reg.Storage, "docker/registry/v2/blobs/sha256", hexd[:2], hexd, "data")
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, append(b, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	pullErr(t, s, reg.Ref("app:v1"), "", "does not match its digest")
	assertNoLayout(t, s)
}

func TestIMG025_TwoPullsOfOneImageAtOnceFetchItOnce(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	px := startProxy(t, reg)
	s := newStore(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2 := *s // a store per pod creation, one directory
			_, errs[i] = s2.Pull(context.Background(), px.host()+"/app:v1", v1alpha1.PullAlways)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := px.blobGets.Load(); n != 1 {
		t.Errorf("the layer was fetched %d times, want once", n)
	}
}

func mustParse(t *testing.T, ref string) imageref.Reference {
	r, err := imageref.Parse(ref)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A registry that stops answering fails the pull within the store's timeout, naming it.
func TestIMG017_ARegistryThatStopsAnswering(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	s := newStore(t)
	s.Timeout = time.Second
	start := time.Now()
	pullErr(t, s, strings.TrimPrefix(hang.URL, "http://")+"/app:v1", "", "stopped answering")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the pull took %v", d)
	}
}

// A registry that sends half a layer and then stops answering fails the pull within the store's
// timeout (a wait for the next bytes, not for the whole pull), naming the image, and nothing
// of it is trusted later (IMG-017, IMG-018).
func TestIMG017_IMG018_ARegistryThatStallsMidLayer(t *testing.T) {
	px, ref, d := proxiedImage(t)
	px.stall.Store(true)
	s := newStore(t)
	s.Timeout = time.Second
	failed := make(chan error, 1)
	go func() {
		_, err := s.Pull(context.Background(), ref, "")
		failed <- err
	}()
	var err error
	select {
	case err = <-failed:
	case <-time.After(20 * s.Timeout):
		t.Fatalf("a pull from a registry that stalled mid-layer did not end in %v", 20*s.Timeout)
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.Image != ref || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), "stopped answering") {
		t.Fatalf("a registry that stalled mid-layer: %v, want an error naming %s that says it stopped answering", err, ref)
	}
	if px.blobGets.Load() == 0 {
		t.Fatal("the pull failed before it fetched a layer")
	}
	assertNothingTrustedAfterTheFault(t, s, ref, d, func() { px.stall.Store(false) })
}

// The store's timeout bounds a wait for the next bytes, not the transfer: a layer that keeps
// coming, slowly, is pulled however long it takes.
func TestASlowLayerThatKeepsComingIsPulled(t *testing.T) {
	px, ref, d := proxiedImage(t)
	s := newStore(t)
	s.Timeout = time.Second
	px.trickle.Store(int64(s.Timeout * 2 / 5))
	start := time.Now()
	p, err := s.Pull(context.Background(), ref, "")
	if err != nil || p.Digest != d {
		t.Fatalf("a slow pull: %+v, %v", p, err)
	}
	if took := time.Since(start); took <= s.Timeout {
		t.Fatalf("the layer came in %v, within the timeout: the test shows nothing", took)
	}
}

// A pull that takes more than a second reports its progress, and one that does not, nothing.
func TestAPullLongerThanASecondReportsProgress(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{})
	reg.Push(layout(t, "one"), reg.Ref("app:v1"))
	px := startProxy(t, reg)
	var out strings.Builder
	s := newStore(t)
	s.Progress = &syncWriter{w: &out}
	if _, err := s.Pull(context.Background(), px.host()+"/app:v1", ""); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("a quick pull printed %q", out.String())
	}
	px.delay.Store(int64(1500 * time.Millisecond))
	s2 := newStore(t)
	s2.Progress = s.Progress
	if _, err := s2.Pull(context.Background(), px.host()+"/app:v1", ""); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "pull "+px.host()+"/app:v1: ") || !strings.HasSuffix(got, ", done\n") {
		t.Errorf("a slow pull printed %q", got)
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
