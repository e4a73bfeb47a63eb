// Package registrytest is test-only: it starts Debian's docker-registry (the CNCF distribution
// registry) on 127.0.0.1 and a free port with a storage directory of its own, over plain HTTP
// or over TLS with a CA it makes and htpasswd basic auth, and pushes OCI layouts into it with
// go-containerregistry. The registry process is the conformance suite's
// (framework.StartRegistryWith), so that the Go tests and the suite run one registry the same
// way. Every registry it starts is stopped when the test ends, failed or not.
package registrytest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"podspec.dev/podspec/conformance/framework"
)

// Binary is Debian's docker-registry.
const Binary = framework.RegistryBinary

// Registry is a running registry.
type Registry struct {
	// Host is 127.0.0.1:PORT.
	Host string
	// Storage is its storage directory (docker/registry/v2/... below it).
	Storage string
	// CADir, for a TLS registry, is a directory in containers' certs.d layout holding its CA
	// (CADir/HOST/ca.crt); CA is the CA's PEM.
	CADir string
	CA    []byte
	// User and Password are the htpasswd credentials of a TLS registry.
	User, Password string

	t   *testing.T
	reg *framework.Registry
}

// Options select how a registry is started.
type Options struct {
	// TLS serves HTTPS with a certificate for 127.0.0.1 from a CA the package makes, and asks
	// for htpasswd basic auth.
	TLS bool
}

// Start starts a registry (the conformance suite's, framework.StartRegistryWith), or skips the
// test when docker-registry is not installed.
func Start(t *testing.T, o Options) *Registry {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Skip("needs Debian's docker-registry")
	}
	dir := t.TempDir()
	r := &Registry{t: t}
	var extra func(string) (string, error)
	if o.TLS {
		extra = func(host string) (string, error) {
			r.Host = host
			cert, key := r.makeCerts(t, dir)
			r.User, r.Password = "podspec", "s3cret-"+strings.TrimPrefix(host, "127.0.0.1:")
			htpasswd := filepath.Join(dir, "htpasswd")
			out, err := exec.Command("htpasswd", "-Bbn", r.User, r.Password).Output()
			if err != nil {
				t.Skipf("needs apache2-utils' htpasswd: %v", err)
			}
			if err := os.WriteFile(htpasswd, out, 0o600); err != nil {
				return "", err
			}
			return fmt.Sprintf("  tls:\n    certificate: %s\n    key: %s\nauth:\n  htpasswd:\n    realm: podspec-test\n    path: %s\n", cert, key, htpasswd), nil
		}
	}
	reg, err := framework.StartRegistryWith(filepath.Join(dir, "registry"), extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Stop)
	r.reg, r.Host, r.Storage = reg, reg.Host, reg.Storage
	return r
}

// Stop stops the registry and waits for it; a stopped registry refuses connections.
func (r *Registry) Stop() { r.reg.Stop() }

// Ref is a reference to a repository and tag (or @digest) in this registry.
func (r *Registry) Ref(repoAndTag string) string { return r.reg.Ref(repoAndTag) }

// Push pushes the only image of an OCI layout as ref, and returns the manifest digest.
func (r *Registry) Push(layoutDir, ref string) string {
	t := r.t
	t.Helper()
	p, err := layout.FromPath(layoutDir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("layout %s: want one image, %v", layoutDir, err)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	nref, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(nref, img, r.remoteOptions()...); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	d, _ := img.Digest()
	return d.String()
}

// PlatformImage is an image of a layout and the platform an index names it for.
type PlatformImage = framework.PlatformImage

// PushIndex pushes a multi-platform index of layouts' images to ref of a plain-HTTP registry
// (framework.Registry.PushIndex), and returns their manifest digests, in order.
func (r *Registry) PushIndex(ref string, images ...PlatformImage) []string {
	r.t.Helper()
	digests, err := r.reg.PushIndex(context.Background(), ref, images...)
	if err != nil {
		r.t.Fatal(err)
	}
	return digests
}

func (r *Registry) remoteOptions() []remote.Option {
	opts := []remote.Option{remote.WithContext(context.Background())}
	if r.CA != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(r.CA)
		opts = append(opts, remote.WithTransport(&http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}),
			remote.WithAuth(&authn.Basic{Username: r.User, Password: r.Password}))
	}
	return opts
}

// AuthFile writes an auth.json ($REGISTRY_AUTH_FILE's format) with the registry's
// credentials, or with a wrong password, and returns its path.
func (r *Registry) AuthFile(dir string, wrongPassword bool) string {
	pw := r.Password
	if wrongPassword {
		pw += "-wrong"
	}
	data := fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, r.Host, basic(r.User, pw))
	p := filepath.Join(dir, "auth.json")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// makeCerts makes a CA and a server certificate for 127.0.0.1 signed by it, writes the CA into
// CADir/HOST/ca.crt, and returns the server certificate's and key's paths.
func (r *Registry) makeCerts(t *testing.T, dir string) (string, string) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "podspec test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	r.CA = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	r.CADir = filepath.Join(dir, "certs.d")
	write := func(p string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(r.CADir, r.Host, "ca.crt"), r.CA)
	cert, keyPath := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	write(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	write(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	return cert, keyPath
}

func basic(user, pw string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pw))
}
