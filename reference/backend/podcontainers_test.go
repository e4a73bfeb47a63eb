package backend

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/store"
)

// Removing a pod touches only its own containers: the IDs come from its bundles, and the OCI
// runtime is asked to delete those, never to list every container on the host (a `runc list`
// reads every container's state, so each removal cost in proportion to the number of pods: 535
// ms a pod among 1,000, issue 31). A bundle whose container is gone is passed over. The OCI
// runtime here is a script that records its arguments and answers like runc.
func TestRemovingAPodNeverListsTheOtherPodsContainers(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := filepath.Join(dir, "fake-runc")
	// `delete --force ID`: gone for "gone", deleted otherwise; anything else is recorded too.
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\n" +
		"case \"$*\" in *gone*) echo 'container does not exist' >&2; exit 1;; esac\nexit 0\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	podDir := filepath.Join(dir, "pod")
	for _, id := range []string{"a1b2c3d4e5f6-web-0", "a1b2c3d4e5f6-web-0.1", "gone"} {
		if err := os.MkdirAll(filepath.Join(podDir, store.InstancesDir, id), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	b := New(filepath.Join(dir, "root"), fake)
	pod := &engine.PodInfo{Name: "web", Dir: podDir}
	ids, err := b.PodContainers(context.Background(), pod)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a1b2c3d4e5f6-web-0", "a1b2c3d4e5f6-web-0.1", "gone"}; !slices.Equal(ids, want) {
		t.Errorf("PodContainers %v, want %v", ids, want)
	}
	if err := b.RemovePod(context.Background(), pod, nil); err != nil {
		t.Fatalf("RemovePod: %v", err)
	}
	b2, _ := os.ReadFile(calls)
	got := strings.TrimSpace(string(b2))
	if strings.Contains(got, "list") {
		t.Errorf("the OCI runtime was asked to list every container:\n%s", got)
	}
	for _, id := range ids {
		if !strings.Contains(got, "delete --force "+id) {
			t.Errorf("no delete of %s:\n%s", id, got)
		}
	}
	if ids, err := b.PodContainers(context.Background(), &engine.PodInfo{Name: "none", Dir: filepath.Join(dir, "none")}); err != nil || ids != nil {
		t.Errorf("a pod without an instances directory: %v, %v; want none", ids, err)
	}
}
