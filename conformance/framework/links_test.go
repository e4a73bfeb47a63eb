package framework

import (
	"os/exec"
	"strings"
	"testing"
)

// The suite certifies any runtime through the command-line contract, so it must not link the
// reference runtime: what both need (OCI image layouts, the runtime contract's types) lives
// outside reference/. A suite that imported the reference could pass because of code the
// runtime under test never runs.
func TestTheSuiteLinksNothingOfTheReferenceRuntime(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list dependencies")
	}
	out, err := exec.Command("go", "list", "-deps", "podspec.dev/podspec/conformance/...",
		"podspec.dev/podspec/cmd/podspec-conformance", "podspec.dev/podspec/cmd/podspec-probe").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "podspec.dev/podspec/reference/") {
			t.Errorf("the conformance suite depends on %s", pkg)
		}
	}
}
