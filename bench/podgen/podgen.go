// Package podgen generates realistic, valid pod manifests for benchmarks: each has an init
// container, a sidecar with a startup probe, two ordered main containers with env, resources,
// probes and volume mounts, and a defer container, about 70 lines of YAML. Manifest i is the
// same on every call, so runs compare.
package podgen

import (
	"fmt"
	"strings"
)

// Pod returns manifest number i. An invalid manifest has an unknown restartPolicy (an error
// both the schema and the semantic checks find).
func Pod(i int, invalid bool) string {
	restart := "OnFailure"
	if invalid {
		restart = "Sometimes"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: web-%[1]d
  labels:
    app: web-%[1]d
    tier: frontend
    version: v%[2]d
  annotations:
    example.com/owner: team-%[3]d
spec:
  exitPolicy: AnyFailure
  restartPolicy: %[4]s
  terminationGracePeriodSeconds: 30
  restartBackoff: {initialSeconds: 1, factor: 2, maxSeconds: 60}
  volumes:
    - name: data
      emptyDir: {}
    - name: cache
      emptyDir: {medium: Memory, sizeLimit: 64Mi}
  initContainers:
    - name: prepare
      image: oci:images/busybox:latest
      command: [sh, -c, 'echo prepared > /data/ready']
      volumeMounts:
        - {name: data, mountPath: /data}
    - name: proxy
      image: oci:images/proxy:1.%[5]d
      restartPolicy: Always
      startupProbe:
        exec: {command: [sh, -c, 'test -f /tmp/proxy.pid']}
        periodSeconds: 1
        failureThreshold: 30
  containers:
    - name: app
      image: oci:images/web:%[6]d.0.%[7]d
      command: [sh, -c, 'exec httpd -f -p 8080']
      args: ["--port=8080", "--log-level=info"]
      env:
        - name: POD_NAME
          value: web-%[1]d
        - name: MODE
          value: production
      resources:
        requests: {cpu: 100m, memory: 128Mi}
        limits: {cpu: 500m, memory: 256Mi, pids: 128}
      readinessProbe:
        exec: {command: [sh, -c, 'wget -q -O- http://127.0.0.1:8080/healthz']}
        initialDelaySeconds: 5
        periodSeconds: 10
      volumeMounts:
        - {name: data, mountPath: /data, readOnly: true}
        - {name: cache, mountPath: /cache}
    - name: worker
      image: oci:images/worker:2.%[2]d
      command: [sh, -c, 'while true; do sleep 5; done']
      dependsOn:
        - {name: app, condition: Ready}
      stopSignal: SIGINT
      resources:
        limits: {cpu: 200m, memory: 64Mi}
  deferContainers:
    - name: flush
      image: oci:images/busybox:latest
      command: [sh, -c, 'sync && echo flushed']
      timeoutSeconds: 5
      volumeMounts:
        - {name: cache, mountPath: /cache}
`, i, i%5, i%7, restart, i%9, i%13, i%3)
	return b.String()
}
