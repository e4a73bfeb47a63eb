package podgen

import "fmt"

// Deployment returns Kubernetes apps/v1 Deployment number i, shaped like a Helm chart's: labels
// and annotations, a rolling-update strategy, a pod template with a security context, an init
// container, a native sidecar with a startup probe, a main container with ports, env (values and
// references), resources, probes, a preStop hook and mounts, and two volumes; about 90 lines of
// YAML. It is valid for Kubernetes 1.37 and for podspec validate (no finding).
func Deployment(i int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-%[1]d
  namespace: shop
  labels:
    app.kubernetes.io/name: web-%[1]d
    app.kubernetes.io/instance: release-%[2]d
    app.kubernetes.io/version: "1.%[2]d.0"
    app.kubernetes.io/managed-by: Helm
    helm.sh/chart: web-0.%[2]d.0
spec:
  replicas: %[3]d
  revisionHistoryLimit: 10
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%%, maxUnavailable: 0}
  selector:
    matchLabels:
      app.kubernetes.io/name: web-%[1]d
      app.kubernetes.io/instance: release-%[2]d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web-%[1]d
        app.kubernetes.io/instance: release-%[2]d
      annotations:
        checksum/config: 0f1e2d3c4b5a6978%08[1]d
    spec:
      serviceAccountName: web
      terminationGracePeriodSeconds: 45
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
        seccompProfile: {type: RuntimeDefault}
      initContainers:
        - name: migrate
          image: ghcr.io/shop/web:1.%[2]d.0
          command: [web, migrate]
          envFrom:
            - secretRef: {name: web-db}
        - name: proxy
          image: ghcr.io/shop/proxy:2.%[2]d
          restartPolicy: Always
          ports:
            - {name: admin, containerPort: 9901}
          startupProbe:
            httpGet: {path: /ready, port: admin}
            periodSeconds: 1
            failureThreshold: 30
          resources:
            requests: {cpu: 50m, memory: 64Mi}
            limits: {memory: 128Mi}
      containers:
        - name: web
          image: ghcr.io/shop/web:1.%[2]d.0
          imagePullPolicy: IfNotPresent
          args: [--port=8080, --log-format=json]
          ports:
            - {name: http, containerPort: 8080, protocol: TCP}
          env:
            - {name: MODE, value: production}
            - {name: SHARD, value: "%[1]d"}
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
          resources:
            requests: {cpu: 250m, memory: 256Mi}
            limits: {cpu: "1", memory: 512Mi}
          readinessProbe:
            httpGet: {path: /ready, port: http}
            periodSeconds: 5
          livenessProbe:
            httpGet: {path: /healthz, port: http}
            initialDelaySeconds: 10
          lifecycle:
            preStop: {sleep: {seconds: 5}}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
          volumeMounts:
            - {name: tmp, mountPath: /tmp}
            - {name: config, mountPath: /etc/web, readOnly: true}
      volumes:
        - name: tmp
          emptyDir: {sizeLimit: 64Mi}
        - name: config
          configMap: {name: web-%[1]d}
`, i, i%7, 2+i%3)
}
