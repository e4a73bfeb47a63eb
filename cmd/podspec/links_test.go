package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every runtime verb starts a podspec process on the measured start and stop path of a pod, so
// podspec must not link what only other binaries need: CUE's evaluator (the cue package's
// tests use it), Ginkgo, Gomega and the suite (podspec-conformance). Linking them doubled the
// start time of every command.
func TestPodspecLinksNoCUENoSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{"cuelang.org/", "github.com/onsi/", "podspec.dev/podspec/cue", "podspec.dev/podspec/conformance"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("podspec links %s", pkg)
			}
		}
	}
}
