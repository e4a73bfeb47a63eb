package engine_test

import (
	"testing"
	"time"
)

// A container's securityContext is what its process gets: runAsUser and runAsGroup in place of
// the image's User (SEC-021), a read-only root filesystem with its volumes still writable
// (SEC-023), and the default capabilities less those dropped, plus those added (SEC-024).
// Each container prints what it has and exits.
func TestSEC021_SEC023_SEC024_SecurityContextIsWhatTheProcessGets(t *testing.T) {
	t.Parallel()
	layout := userImages(t, map[string]string{"named": "app", "root": ""})
	const caps = `grep -E '^Cap(Bnd|Eff|Prm):' /proc/self/status | tr -s '\t' ' '`
	tp := startPod(t, `
metadata: {name: security-context}
spec:
  restartPolicy: Never
  volumes: [{name: scratch, emptyDir: {}}]
  containers:
  - name: user-group
    image: `+layout+`:root
    command: [sh, -c, "id -u; id -g"]
    securityContext: {runAsUser: 1000, runAsGroup: 3000}
  - name: user-only
    image: `+layout+`:root
    command: [sh, -c, "id -u; id -g; id -G"]
    securityContext: {runAsUser: 1000}
  - name: group-only
    image: `+layout+`:named
    command: [sh, -c, "id -u; id -g"]
    securityContext: {runAsGroup: 3000}
  - name: read-only
    image: `+layout+`:root
    command: [sh, -c, "touch /x 2>/dev/null && echo rootfs writable || echo rootfs read-only; touch /scratch/x && echo volume writable"]
    volumeMounts: [{name: scratch, mountPath: /scratch}]
    securityContext: {readOnlyRootFilesystem: true}
  - name: drop-all-add-chown
    image: `+layout+`:root
    command: [sh, -c, "`+caps+`"]
    securityContext: {capabilities: {drop: [ALL], add: [CHOWN]}}
  - name: drop-net-raw
    image: `+layout+`:root
    command: [sh, -c, "`+caps+`"]
    securityContext: {capabilities: {drop: [NET_RAW]}}
`)
	st := tp.wait(120 * time.Second)
	// CAP_CHOWN is bit 0; Docker's 14 are 0x00000000a80425fb, less CAP_NET_RAW (bit 13) 0x00000000a80405fb.
	want := map[string]string{
		"user-group":         "1000\n3000\n",
		"user-only":          "1000\n1000\n1000 2000\n",
		"group-only":         "1000\n3000\n",
		"read-only":          "rootfs read-only\nvolume writable\n",
		"drop-all-add-chown": "CapPrm: 0000000000000001\nCapEff: 0000000000000001\nCapBnd: 0000000000000001\n",
		"drop-net-raw":       "CapPrm: 00000000a80405fb\nCapEff: 00000000a80405fb\nCapBnd: 00000000a80405fb\n",
	}
	for name, out := range want {
		b, _ := readLog(tp.p.LogPath(name, 0))
		if got := string(b); got != out {
			t.Errorf("container %s logged %q, want %q; events:\n%s", name, got, out, tp.timeline())
		}
	}
	if st.Phase != "Succeeded" {
		t.Errorf("pod %s, want Succeeded; events:\n%s", st.Phase, tp.timeline())
	}
}

// runAsNonRoot with a process that would run as user 0, from the image's User or from no User
// at all, is a start error that says why; with runAsUser it starts (SEC-022).
func TestSEC022_RunAsNonRootWithUserZeroIsAStartError(t *testing.T) {
	t.Parallel()
	layout := userImages(t, map[string]string{"root": "", "named": "app"})
	tp := startPod(t, `
metadata: {name: run-as-non-root}
spec:
  restartPolicy: Never
  containers:
  - {name: rooted, image: `+layout+`:root, command: [sh, -c, "id -u"], securityContext: {runAsNonRoot: true}}
  - {name: named, image: `+layout+`:named, command: [sh, -c, "id -u"], securityContext: {runAsNonRoot: true}}
  - {name: overridden, image: `+layout+`:root, command: [sh, -c, "id -u"], securityContext: {runAsNonRoot: true, runAsUser: 1000}}
`)
	st := tp.wait(60 * time.Second)
	tp.neverStarted("rooted", "runAsNonRoot")
	for _, name := range []string{"named", "overridden"} {
		if term := tp.container(name).State.Terminated; term == nil || term.ExitCode == nil || *term.ExitCode != 0 {
			t.Errorf("%s %+v, want exit 0; events:\n%s", name, term, tp.timeline())
		}
	}
	if st.Phase != "Failed" {
		t.Errorf("pod %s, want Failed", st.Phase)
	}
}
