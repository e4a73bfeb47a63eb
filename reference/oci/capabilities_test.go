package oci

import (
	"slices"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

// The manifest's default capabilities (what a securityContext may add, SEC-018) are the
// runtime's, with Kubernetes' names.
func TestDefaultCapabilitiesAreTheManifests(t *testing.T) {
	var want []string
	for _, c := range v1alpha1.DefaultCapabilities {
		want = append(want, "CAP_"+string(c))
	}
	if !slices.Equal(DefaultCapabilities, want) {
		t.Errorf("oci.DefaultCapabilities = %q, api/v1alpha1's are %q", DefaultCapabilities, want)
	}
}
