package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The supervisor runs once per pod for the pod's whole life: its binary must not link the
// validator, the conformance suite or the command-line framework (their package
// initialisation and pages would count for every pod).
func TestSupervisorLinksNoValidatorNoSuiteNoCLIFramework(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	forbidden := []string{"cuelang.org/", "github.com/santhosh-tekuri/jsonschema", "github.com/onsi/", "github.com/spf13/cobra",
		"podspec.dev/podspec/validator", "podspec.dev/podspec/cue", "podspec.dev/podspec/schema", "podspec.dev/podspec/conformance",
		// a supervisor never pulls (IMG-023): it starts instances from images kept at creation
		"podspec.dev/podspec/reference/registry", "github.com/google/go-containerregistry/pkg/v1/remote"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("podspec-supervisor links %s", pkg)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"supervise"}, {"supervise", "pod"}, {"supervise", "--root", "/tmp/x", "a", "b"}, {"--bogus"}} {
		if code := run(args); code != 2 {
			t.Errorf("run(%q) = %d, want 2", args, code)
		}
	}
}
