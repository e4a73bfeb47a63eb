// Package registry pulls registry images (github.com/google/go-containerregistry's remote client:
// the registry protocol, token and basic auth, retries) into content-addressed OCI image
// layouts under the runtime's state root, which package image then resolves, verifies and
// unpacks like any layout (IMG-007). It decides when to contact a registry (imagePullPolicy,
// IMG-019 … IMG-021), which credentials and certificates to use, and when plain HTTP is allowed
// (IMG-024); it names each failure with its reason (IMG-017).
//
// Store layout under Root:
//
//	blobs/sha256/<hex>          every blob, written only after its digest and size were verified
//	layouts/<manifest-hex>/     one OCI layout per image manifest, its blobs hard links into blobs/
//	refs/<sha256(reference)>.json  the manifest digest a reference resolved to last
//	locks/<manifest-hex>.lock   one lock per manifest: concurrent pulls of an image fetch it once
//	tmp/                        blobs and layouts being written; never read
//
// A pull killed at any moment leaves at most files under tmp/ (removed by the next pull or
// prune) and verified blobs nobody links yet: a layout appears, by rename, only when whole.
// The package is linked by the podspec command only; supervisors never pull.
package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/imageref"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/ocilayout"
)

// Store pulls registry images into content-addressed layouts under Root.
type Store struct {
	// Root is the store's directory, e.g. /var/lib/podspec/images/registry.
	Root string
	// Insecure lists registries (HOST or HOST:PORT) that may be reached over plain HTTP besides
	// loopback ones (IMG-024).
	Insecure []string
	// CertsDirs are directories in containers' certs.d layout (DIR/HOST[:PORT]/*.crt are CAs the
	// registry's certificate may chain to, besides the system's); nil means DefaultCertsDirs.
	CertsDirs []string
	// Keychain finds credentials; nil means Keychain().
	Keychain authn.Keychain
	// Progress, when set, receives a line of progress per second for a pull that takes longer
	// than a second (the command sets it on a terminal only).
	Progress io.Writer
	// Timeout bounds each wait for a registry: for a connection, a TLS handshake, an answer's
	// headers, and each next part of an answer's body (a registry that stops answering
	// midway, IMG-017), never a whole transfer; zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultCertsDirs are where containers' tools and Docker look for per-registry CAs.
var DefaultCertsDirs = []string{"/etc/containers/certs.d", "/etc/docker/certs.d"}

// DefaultTimeout bounds a connection, a TLS handshake, the wait for a response's headers and
// each wait for more of its body.
const DefaultTimeout = 30 * time.Second

// Pulled is a registry image the store holds.
type Pulled struct {
	// Ref is the reference as written, parsed.
	Ref imageref.Reference
	// Digest is the digest of the image manifest for this platform.
	Digest string
	// Layout is the store's layout holding the image, by digest: package image resolves it.
	Layout ocilayout.Reference
}

// ImageID is the pulled image by digest, HOST/PATH@sha256:HEX, as status reports it (IMG-016).
func (p *Pulled) ImageID() string {
	return p.Ref.Registry() + "/" + p.Ref.Name.Context().RepositoryStr() + "@" + p.Digest
}

// Error is a failed pull: the image as written, and why (IMG-017).
type Error struct {
	Image  string
	Reason string
	Err    error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("pull %s: %s", e.Image, e.Reason)
	}
	return fmt.Sprintf("pull %s: %s: %v", e.Image, e.Reason, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Pull makes the store hold the image a registry reference names, as policy says (an empty
// policy is the reference's default, IMG-022): Always asks the registry which manifest the
// reference names and fetches what the store lacks; IfNotPresent uses what the store holds for
// the reference and pulls otherwise; Never never contacts a registry.
func (s *Store) Pull(ctx context.Context, image string, policy v1alpha1.PullPolicy) (*Pulled, error) {
	ref, err := imageref.Parse(image)
	if err != nil {
		return nil, &Error{Image: image, Reason: "not a registry reference", Err: err}
	}
	if policy == "" {
		policy = v1alpha1.DefaultPullPolicy(image)
	}
	if policy != v1alpha1.PullAlways {
		if p, err := s.Lookup(ref); err == nil {
			return p, nil
		} else if policy == v1alpha1.PullNever {
			return nil, &Error{Image: image, Reason: "imagePullPolicy is Never and the image is not present", Err: err}
		}
	}
	return s.pull(ctx, image, ref)
}

// Lookup returns the image the store holds for a reference, without contacting a registry.
func (s *Store) Lookup(ref imageref.Reference) (*Pulled, error) {
	digest := ""
	if !ref.Tagged {
		digest = ref.Name.Identifier()
	}
	var rec refRecord
	if data, err := os.ReadFile(s.refPath(ref)); err == nil && json.Unmarshal(data, &rec) == nil && rec.Ref == ref.String() {
		digest = rec.Digest // a digest reference may name an index: the record names its manifest
	}
	if digest == "" || !ocilayout.ValidDigest(digest) {
		return nil, fmt.Errorf("%w: no image for %s", ocilayout.ErrNotFound, ref)
	}
	dir := s.layoutPath(digest)
	if _, err := os.Stat(filepath.Join(dir, ocispec.ImageIndexFile)); err != nil {
		return nil, fmt.Errorf("%w: no image %s for %s", ocilayout.ErrNotFound, digest, ref)
	}
	return &Pulled{Ref: ref, Digest: digest, Layout: ocilayout.Reference{Path: dir, Digest: digest}}, nil
}

// refRecord is what a reference resolved to when it was last pulled.
type refRecord struct {
	Ref    string    `json:"ref"`
	Digest string    `json:"digest"`
	Pulled time.Time `json:"pulled"`
}

func (s *Store) refPath(ref imageref.Reference) string {
	sum := sha256.Sum256([]byte(ref.String()))
	return filepath.Join(s.Root, "refs", hex.EncodeToString(sum[:])+".json")
}

func (s *Store) layoutPath(digest string) string {
	return filepath.Join(s.Root, "layouts", strings.TrimPrefix(digest, "sha256:"))
}

func (s *Store) blobPath(digest string) string {
	return filepath.Join(s.Root, "blobs", "sha256", strings.TrimPrefix(digest, "sha256:"))
}

// pull asks the registry which manifest the reference names (a HEAD, then the manifest by that
// digest, which the client verifies), and writes what the store lacks.
func (s *Store) pull(ctx context.Context, image string, ref imageref.Reference) (*Pulled, error) {
	fail := func(err error) (*Pulled, error) {
		var pe *Error
		if errors.As(err, &pe) {
			return nil, err
		}
		return nil, &Error{Image: image, Reason: reason(ref, err), Err: err}
	}
	for _, d := range []string{"blobs/sha256", "layouts", "refs", "locks", "tmp"} {
		if err := os.MkdirAll(filepath.Join(s.Root, d), 0o700); err != nil {
			return fail(err)
		}
	}
	opts, err := s.remoteOptions(ctx, ref)
	if err != nil {
		return fail(err)
	}
	nref := s.clientName(ref)
	if ref.Tagged {
		desc, err := remote.Head(nref, opts...)
		if err != nil {
			return fail(err)
		}
		nref = nref.Context().Digest(desc.Digest.String())
	}
	img, err := remote.Image(nref, opts...)
	if err != nil {
		// go-containerregistry verifies a manifest fetched by digest but has no sentinel
		// error for a mismatch; its message is the only sign.
		if strings.Contains(err.Error(), "does not match requested digest") {
			err = fmt.Errorf("%w: %v", errDigestMismatch, err)
		}
		return fail(err)
	}
	d, err := img.Digest()
	if err != nil {
		return fail(err)
	}
	digest := d.String()
	if !ocilayout.ValidDigest(digest) {
		return fail(fmt.Errorf("%w: manifest digest %q", ocilayout.ErrUnsupported, digest))
	}
	p := &Pulled{Ref: ref, Digest: digest, Layout: ocilayout.Reference{Path: s.layoutPath(digest), Digest: digest}}
	unlock, err := flock.Exclusive(ctx, filepath.Join(s.Root, "locks", strings.TrimPrefix(digest, "sha256:")+".lock"))
	if err != nil {
		return fail(err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(p.Layout.Path, ocispec.ImageIndexFile)); err != nil {
		if err := s.writeLayout(ctx, image, ref, img, digest); err != nil {
			return fail(err)
		}
	}
	rec, _ := json.Marshal(refRecord{Ref: ref.String(), Digest: digest, Pulled: time.Now().UTC()})
	if err := atomicfile.WriteFile(s.refPath(ref), rec, 0o600); err != nil {
		return fail(err)
	}
	return p, nil
}

// platform is the platform a multi-platform index is resolved for: the runtime's.
func platform() v1.Platform { return v1.Platform{OS: "linux", Architecture: runtime.GOARCH} }

func (s *Store) remoteOptions(ctx context.Context, ref imageref.Reference) ([]remote.Option, error) {
	rt, err := s.transport(ref.Registry())
	if err != nil {
		return nil, err
	}
	kc := s.Keychain
	if kc == nil {
		kc = Keychain()
	}
	return []remote.Option{remote.WithContext(ctx), remote.WithTransport(rt), remote.WithAuthFromKeychain(kc),
		remote.WithPlatform(platform()), remote.WithUserAgent("podspec")}, nil
}

// clientName is the reference as the registry client is given it: marked insecure when the
// registry may be reached over plain HTTP, so that the client tries HTTP after HTTPS.
func (s *Store) clientName(ref imageref.Reference) name.Reference {
	if s.plainHTTPAllowed(ref.Registry()) {
		if r, err := name.ParseReference(ref.Name.Name(), name.Insecure); err == nil {
			return r
		}
	}
	return ref.Name
}

// PullLayout is Pull for the reference runtime's backend: the layout holding the image, by
// digest, and its imageID.
func (s *Store) PullLayout(ctx context.Context, image string, policy v1alpha1.PullPolicy) (ocilayout.Reference, string, error) {
	p, err := s.Pull(ctx, image, policy)
	if err != nil {
		return ocilayout.Reference{}, "", err
	}
	return p.Layout, p.ImageID(), nil
}
