package validation

import (
	"fmt"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// basePodYAML is a valid pod that uses every feature the checks look at.
const basePodYAML = `
apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: shard-7
  labels: {app: db, example.com/tier: backend}
  annotations: {podspec.dev/note: "anything goes here"}
spec:
  exitPolicy: AnyFailure
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 30
  activeDeadlineSeconds: 3600
  volumes:
    - {name: data, emptyDir: {sizeLimit: 64Mi}}
    - {name: certs, hostPath: {path: /etc/shard/certs}}
    - {name: cache, shared: {name: build-cache, reclaimPolicy: Delete}}
  initContainers:
    - name: fetch
      image: oci:images/tools:1.0
      command: [/bin/fetch, --to, /data]
      volumeMounts: [{name: data, mountPath: /data}]
    - name: gossip
      image: oci:images/gossip:2.1
      restartPolicy: Always
      startupProbe: {exec: {command: [/bin/gossip, status]}, periodSeconds: 1, failureThreshold: 30}
      lifecycle: {preStop: {sleep: {seconds: 1}}}
      notifiers: [{name: reload, action: {signal: SIGHUP}}]
  containers:
    - name: db
      image: oci:/var/lib/images/db@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
      command: [/bin/db]
      args: [--data, /data]
      env: [{name: MODE, value: primary}]
      stopSignal: SIGINT
      resources: {limits: {cpu: "1", memory: 512Mi, pids: 256}, requests: {cpu: 500m, memory: 256Mi}}
      resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}]
      readinessProbe: {exec: {command: [/bin/db, ping]}, periodSeconds: 2}
      livenessProbe: {exec: {command: [/bin/db, ping]}}
      lifecycle:
        postStart: {exec: {command: [/bin/db, warm]}}
        preStop: {exec: {command: [/bin/db, checkpoint]}}
      notifiers:
        - {name: quiesce, timeoutSeconds: 20, action: {exec: {command: [/bin/db, freeze]}}}
        - {name: example.com/reload, action: {signal: SIGHUP}}
      volumeMounts: [{name: data, mountPath: /data}, {name: certs, mountPath: /certs, readOnly: true}]
    - name: api
      image: oci:images/api
      dependsOn: [{name: db, condition: Ready}]
    - name: migrate
      image: oci:images/api:3
      dependsOn: [{name: db}]
    - name: report
      image: oci:images/api:3
      dependsOn: [{name: migrate, condition: Completed}, {name: api, condition: Started}]
  deferContainers:
    - name: rebalance
      phase: BeforeStop
      image: oci:images/tools:1.0
      command: [/bin/rebalance]
      timeoutSeconds: 15
    - name: upload
      image: oci:images/tools:1.0
      command: [/bin/upload, /data/out]
      timeoutSeconds: 10
      restartPolicy: OnFailure
      onFailure: Abort
      volumeMounts: [{name: data, mountPath: /data}, {name: cache, mountPath: /cache}]
`

const baseNotificationYAML = `
apiVersion: podspec.dev/v1alpha1
kind: Notification
metadata: {name: quiesce-before-snapshot}
spec:
  notifier: quiesce
  selector:
    matchLabels: {app: db}
    matchExpressions:
      - {key: example.com/tier, operator: In, values: [backend, storage]}
      - {key: canary, operator: DoesNotExist}
  targetPolicy: AllPods
  parallelism: 2
`

// decodePod decodes a pod from YAML (no defaulting).
func decodePod(t testing.TB, doc string) *v1alpha1.Pod {
	t.Helper()
	var p v1alpha1.Pod
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		t.Fatalf("decode pod: %v", err)
	}
	return &p
}

func basePod(t testing.TB) *v1alpha1.Pod { return decodePod(t, basePodYAML) }

func baseNotification(t testing.TB) *v1alpha1.Notification {
	t.Helper()
	var n v1alpha1.Notification
	if err := yaml.UnmarshalStrict([]byte(baseNotificationYAML), &n); err != nil {
		t.Fatalf("decode notification: %v", err)
	}
	return &n
}

// summary renders findings as sorted "RULE path" lines, warnings marked with "(warning)".
func summary(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		s := fmt.Sprintf("%s %s", e.Rule, e.Field)
		if e.Severity() == spec.Warning {
			s += " (warning)"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func ptr[T any](v T) *T { return &v }

// checkFindings asserts that errs are exactly want (as summary lines) and that every finding
// renders a non-empty message.
func checkFindings(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := summary(errs)
	w := slices.Clone(want)
	slices.Sort(w)
	if !slices.Equal(got, w) {
		t.Errorf("findings:\n got  %q\n want %q", got, w)
		for _, e := range errs {
			t.Logf("  %s %s", e.Rule, e.Error())
		}
	}
	for _, e := range errs {
		if e.Message() == "" {
			t.Errorf("%s at %s has an empty message", e.Rule, e.Field)
		}
	}
}
