// Package imageref parses the registry references that `image:` accepts beside `oci:PATH`
// ([host[:port]/]path[:tag][@digest], as Kubernetes and Docker write them), with
// go-containerregistry's pkg/name, and gives the errors a manifest writer can act on. It
// imports nothing of podspec, so the validator, the runtime and the converter share one
// reading of a reference.
package imageref

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// LayoutPrefix begins an OCI image layout reference (`oci:PATH[:TAG|@DIGEST]`); every other
// value of `image:` is a registry reference.
const LayoutPrefix = "oci:"

// IsLayout reports whether an `image:` value names an OCI image layout rather than a registry.
func IsLayout(ref string) bool { return strings.HasPrefix(ref, LayoutPrefix) }

// otherTransports are containers-image transports that podspec recognises but does not
// support; "docker://" is refused too, with the hint to drop the prefix.
var otherTransports = []string{"docker-archive:", "docker-daemon:", "oci-archive:", "containers-storage:", "dir:", "sif:", "tarball:"}

// Reference is a parsed registry reference.
type Reference struct {
	// Name is go-containerregistry's reference: a name.Tag (docker.io and "latest" filled in
	// when omitted) or a name.Digest (a tag given beside a digest is dropped, as the container
	// runtimes do: the digest alone selects the image).
	Name name.Reference
	// Tagged reports that the reference named a tag, written or the implied "latest", and no
	// digest; only such a reference can resolve to different images over time.
	Tagged bool
	// ImplicitLatest reports that the reference named neither a tag nor a digest.
	ImplicitLatest bool
}

// String is the fully qualified reference as Kubernetes reports it:
// registry/repository:tag or registry/repository@digest, Docker Hub written docker.io.
func (r Reference) String() string {
	s := r.Registry() + "/" + r.Name.Context().RepositoryStr()
	if r.Tagged {
		return s + ":" + r.Name.Identifier()
	}
	return s + "@" + r.Name.Identifier()
}

// Registry is the registry's host[:port]; Docker Hub is docker.io.
func (r Reference) Registry() string {
	if h := r.Name.Context().RegistryStr(); h != name.DefaultRegistry {
		return h
	}
	return "docker.io"
}

// Parse parses a registry reference: `nginx` is docker.io/library/nginx:latest,
// `ghcr.io/org/app:1.2`, `localhost:5000/app@sha256:<64 hex>`. A digest must be sha256 (the
// only algorithm the reference runtime verifies). URL schemes, containers-image transport
// prefixes and empty path components are refused with a message that says what to write.
func Parse(ref string) (Reference, error) {
	switch {
	case ref == "":
		return Reference{}, errors.New("image reference is empty")
	case strings.HasPrefix(ref, "docker://"):
		return Reference{}, fmt.Errorf("drop the \"docker://\" transport prefix: write the registry reference %q as it is", strings.TrimPrefix(ref, "docker://"))
	case strings.Contains(ref, "://"):
		return Reference{}, errors.New("an image reference has no URL scheme: write [host[:port]/]path[:tag][@digest]")
	}
	for _, t := range otherTransports {
		if strings.HasPrefix(ref, t) {
			return Reference{}, fmt.Errorf("transport %q is not supported; use a registry reference [host[:port]/]path[:tag][@digest] or oci:PATH[:TAG|@DIGEST]", strings.TrimSuffix(t, ":"))
		}
	}
	base, dig, hasDigest := strings.Cut(ref, "@")
	if hasDigest {
		if err := CheckDigest(dig); err != nil {
			return Reference{}, err
		}
	}
	// The repository part: what is left once a tag (after the last ':' that follows the last
	// '/') is cut off. pkg/name reads "a//b" and "a/" as repositories; registries do not.
	repo := base
	if i := strings.LastIndexByte(base, ':'); i > strings.LastIndexByte(base, '/') {
		repo = base[:i]
	}
	for _, c := range strings.Split(repo, "/") {
		if c == "" {
			return Reference{}, fmt.Errorf("repository %q has an empty path component", repo)
		}
	}
	var r Reference
	if hasDigest {
		d, err := name.NewDigest(ref)
		if err != nil {
			return Reference{}, readable(err)
		}
		r = Reference{Name: d}
	} else {
		t, err := name.NewTag(ref)
		if err != nil {
			return Reference{}, readable(err)
		}
		r = Reference{Name: t, Tagged: true, ImplicitLatest: !hasTag(ref)}
	}
	// pkg/name checks the length of the repository as written; Docker Hub's implied
	// "library/" can make the full one longer than the 255 characters a registry accepts.
	if full := r.Name.Context().RepositoryStr(); len(full) > maxRepository {
		return Reference{}, fmt.Errorf("repository %q is longer than %d characters", full, maxRepository)
	}
	return r, nil
}

// maxRepository is the longest repository name pkg/name (and the distribution registry) accept.
const maxRepository = 255

// hasTag reports whether a reference without digest writes a tag: a ':' after its last '/'.
func hasTag(ref string) bool {
	return strings.LastIndexByte(ref, ':') > strings.LastIndexByte(ref, '/')
}

// readable turns pkg/name's errors, which list the allowed characters, into a sentence.
func readable(err error) error {
	msg := err.Error()
	for _, what := range []string{"repository", "tag"} {
		if strings.HasPrefix(msg, what+" can only contain the characters") {
			_, val, _ := strings.Cut(msg, "`: ")
			switch what {
			case "repository":
				return fmt.Errorf("repository %q may hold only lower-case letters, digits, '_', '-', '.' and '/'", val)
			default:
				return fmt.Errorf("tag %q may hold only letters, digits, '_', '-' and '.'", val)
			}
		}
	}
	return errors.New(msg)
}

// CheckDigest accepts sha256:<64 lower-case hex digits>, the only digest algorithm the
// reference runtime verifies, in registry and layout references alike.
func CheckDigest(d string) error {
	alg, enc, ok := strings.Cut(d, ":")
	if !ok || alg == "" || enc == "" {
		return fmt.Errorf("digest %q must be sha256:<64 lower-case hex digits>", d)
	}
	if alg != "sha256" {
		return fmt.Errorf("digest algorithm %q is not supported; use sha256", alg)
	}
	for i := 0; i < len(enc); i++ {
		if c := enc[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("digest %q: sha256 needs lower-case hex digits", d)
		}
	}
	if len(enc) != 64 {
		return fmt.Errorf("digest %q: sha256 needs 64 hex digits, got %d", d, len(enc))
	}
	return nil
}
