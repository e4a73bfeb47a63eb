package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every runtime verb starts a podspec process on the measured start and stop path of a pod, so
// podspec must not link what only other binaries or tests need: CUE's evaluator (the cue
// package's tests use it), the general JSON Schema library (package schema/oracle holds the
// schema engine to it in tests; its init alone took 11 ms), Ginkgo, Gomega and the suite
// (podspec-conformance), and the Kubernetes API types (k8s.io/api and k8s.io/apimachinery: about
// 11 MB and up to 14 ms of initialisation; package kubernetes has a generated mirror of them).
// Linking them doubled the start time of every command.
func TestPodspecLinksNoCUENoSuite(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{"cuelang.org/", "github.com/santhosh-tekuri/", "github.com/onsi/", "podspec.dev/podspec/cue",
		"podspec.dev/podspec/conformance", "podspec.dev/podspec/schema/oracle", "k8s.io/"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("podspec links %s", pkg)
			}
		}
	}
}
