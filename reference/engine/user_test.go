package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/ocilayout"
)

// userImages builds, in one layout, a busybox image per tag with the given image-config User
// and an /etc/passwd and /etc/group in which "app" is 1000:1000 and also a member of "extra"
// (2000). It returns "oci:LAYOUT" for the caller to append ":TAG".
func userImages(t *testing.T, users map[string]string) string {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	tree := t.TempDir()
	etc := filepath.Join(tree, "etc")
	if err := os.Mkdir(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"passwd": "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000:app:/:/bin/sh\n",
		"group":  "root:x:0:\napp:x:1000:\nextra:x:2000:app\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	layout := filepath.Join(t.TempDir(), "users")
	for tag, user := range users {
		if _, err := ocilayout.Build(context.Background(), layout, ocilayout.BuildOptions{FromDir: tree, Busybox: true, Tag: tag, User: user}); err != nil {
			t.Fatalf("build image %s: %v", tag, err)
		}
	}
	return "oci:" + layout
}

// The image's User is the process's user: a name is resolved in the image's own /etc/passwd
// (primary group and the /etc/group memberships), numbers are taken as they are. An exec
// probe runs with the same user (HOOK-003: "with its user"): it writes what it sees to /tmp,
// and the container's process copies that to its log.
func TestIMG011_HOOK003_ImageUserIsTheUserOfTheProcessAndOfItsExecProbes(t *testing.T) {
	t.Parallel()
	layout := userImages(t, map[string]string{"named": "app", "numeric": "1234:5678", "named-group": "app:extra", "root": ""})
	const (
		ids    = `id -u; id -g; id -G; `
		idle   = `trap 'exit 0' TERM; while true; do sleep 0.05; done`
		probed = `until [ -s /tmp/probe ]; do sleep 0.05; done; echo probe $(cat /tmp/probe); `
	)
	tp := startPod(t, `
metadata: {name: image-user}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - name: named
    image: `+layout+`:named
    command: [sh, -c, "`+ids+probed+idle+`"]
    readinessProbe: {exec: {command: [sh, -c, 'echo "$(id -u):$(id -g):$(id -G)" > /tmp/p.$$ && mv /tmp/p.$$ /tmp/probe']}, periodSeconds: 1, timeoutSeconds: 30}
  - {name: numeric, image: `+layout+`:numeric, command: [sh, -c, "`+ids+idle+`"]}
  - {name: named-group, image: `+layout+`:named-group, command: [sh, -c, "`+ids+idle+`"]}
  - {name: root, image: `+layout+`:root, command: [sh, -c, "`+ids+idle+`"]}
`)
	want := map[string]string{
		"named":       "1000\n1000\n1000 2000\nprobe 1000:1000:1000 2000\n",
		"numeric":     "1234\n5678\n5678\n",
		"named-group": "1000\n2000\n2000\n",
		"root":        "0\n0\n0\n",
	}
	deadline := time.Now().Add(120 * time.Second)
	for name, out := range want {
		var got string
		for {
			b, _ := readLog(tp.p.LogPath(name, 0))
			if got = string(b); strings.Count(got, "\n") >= strings.Count(out, "\n") || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got != out {
			t.Errorf("container %s logged id -u, id -g, id -G (and what its exec probe saw) = %q, want %q; events:\n%s", name, got, out, tp.timeline())
		}
	}
}

// A user name the image's /etc/passwd does not have is a start error of the container: the
// runtime never falls back to root or to the host's user database.
func TestIMG012_ImageUserMissingFromTheImageIsAStartError(t *testing.T) {
	t.Parallel()
	layout := userImages(t, map[string]string{"ghost": "ghost"})
	tp := startPod(t, `
metadata: {name: image-user-missing}
spec:
  restartPolicy: Never
  containers:
  - {name: ghost, image: `+layout+`:ghost, command: [sh, -c, "id -u"]}
`)
	st := tp.wait(60 * time.Second)
	tp.neverStarted("ghost", "ghost")
	if st.Phase != "Failed" {
		t.Errorf("pod %s, want Failed", st.Phase)
	}
}

// neverStarted checks that container name ended with reason StartError, a message that
// contains why, and no start.
func (tp *testPod) neverStarted(name, why string) {
	tp.t.Helper()
	term := tp.container(name).State.Terminated
	if term == nil || term.Reason != "StartError" || !strings.Contains(term.Message, why) {
		tp.t.Errorf("%s %+v, want reason StartError naming %s; events:\n%s", name, term, why, tp.timeline())
	}
	if n := len(tp.all(runtimev1.EventContainerStarted, name)); n != 0 {
		tp.t.Errorf("%s started %d times, want never", name, n)
	}
}
