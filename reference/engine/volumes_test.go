package engine_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// A disk-backed emptyDir that outgrows its sizeLimit gets the pod evicted: the stop sequence
// begins with reason Evicted, status.message names that volume, the defer learns the reason, and
// the stopped container is recorded Evicted. The other volume, within its limit, is not named.
func TestVOL016_AVolumeOverItsSizeLimitEvictsThePod(t *testing.T) {
	tp := startPod(t, `
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: evicted}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  volumes:
  - {name: data, emptyDir: {sizeLimit: 1Mi}}
  - {name: roomy, emptyDir: {sizeLimit: 64Mi}}
  containers:
  - name: app
    image: IMAGE
    command: [sh, -c, "trap 'exit 0' TERM; dd if=/dev/urandom of=/roomy/small bs=64k count=8 2>/dev/null; sleep 1; dd if=/dev/urandom of=/data/big bs=64k count=64 2>/dev/null; while true; do sleep 0.05; done"]
    volumeMounts: [{name: data, mountPath: /data}, {name: roomy, mountPath: /roomy}]
  deferContainers:
  - {name: report, image: IMAGE, command: [sh, -c, 'echo "reason=$PODSPEC_TERMINATION_REASON" > /roomy/reason'], volumeMounts: [{name: roomy, mountPath: /roomy}]}
`)
	st := tp.wait(60 * time.Second)
	if st.Phase != v1alpha1.PodFailed || st.Reason != "Evicted" {
		t.Fatalf("pod %s reason %q, want Failed with reason Evicted; events:\n%s", st.Phase, st.Reason, tp.timeline())
	}
	if !strings.Contains(st.Message, `"data"`) || strings.Contains(st.Message, `"roomy"`) {
		t.Errorf("status.message %q: want the volume over its limit (data), not the other one", st.Message)
	}
	for _, cs := range st.ContainerStatuses {
		if cs.Name == "app" && (cs.State.Terminated == nil || cs.State.Terminated.Reason != v1alpha1.ReasonEvicted) {
			t.Errorf("app: %+v, want terminated with reason Evicted", cs.State)
		}
	}
	if b, err := os.ReadFile(tp.p.Path(store.VolumesDir, "roomy", "reason")); err != nil || string(b) != "reason=Evicted\n" {
		t.Errorf("the defer saw %q (%v), want PODSPEC_TERMINATION_REASON=Evicted (DEFER-003)", b, err)
	}
	for _, cs := range st.DeferContainerStatuses {
		if cs.Name == "report" && (cs.State.Terminated == nil || cs.State.Terminated.Reason != v1alpha1.ReasonCompleted) {
			t.Errorf("defer report: %+v, want it run to completion", cs.State)
		}
	}
}
