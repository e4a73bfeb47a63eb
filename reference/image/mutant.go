package image

import (
	"encoding/json"
	"os"
	"path/filepath"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"podspec.dev/podspec/ocilayout"
)

// mutantFirstImage is mutant.UntaggedTakesFirst's reference: an untagged reference to a layout
// of several images pinned to the digest of the first, where IMG-006 refuses it. Only the
// mutant build links it (the switch is constant false otherwise).
func mutantFirstImage(ref ocilayout.Reference) ocilayout.Reference {
	b, err := os.ReadFile(filepath.Join(ref.Path, ocispec.ImageIndexFile))
	if err != nil {
		return ref
	}
	var index ocispec.Index
	if json.Unmarshal(b, &index) != nil || len(index.Manifests) < 2 {
		return ref
	}
	ref.Digest = string(index.Manifests[0].Digest)
	return ref
}
