// Package kubernetes reads the Kubernetes objects that carry a pod — v1 Pod, the pod template of
// the v1 ReplicationController and PodTemplate, of the apps/v1 Deployment, StatefulSet,
// DaemonSet and ReplicaSet and of the batch/v1 Job and CronJob, v1 List of them and their typed
// lists (DeploymentList) — checks them as the Kubernetes API server would and beyond
// (the KUBE rules of docs/spec/kubernetes.md), and converts their pods to and from podspec Pods.
//
// The API types here (zz_generated_api.go) are generated from k8s.io/api by internal/apigen:
// the Kubernetes version they describe is the one of APIModuleVersion (v0.N.x is Kubernetes
// 1.N.x). podspec does not link k8s.io/api itself: it would add about 11 MB and up to 14 ms of
// package initialisation to every podspec command, the runtime verbs on a pod's start path
// included; the tests use it to prove that what Convert writes decodes strictly into it.
//
// The package reads documents that package manifest decoded and reports field.Errors with
// paths; it renders nothing and positions nothing itself.
package kubernetes

//go:generate go run ./internal/apigen -o zz_generated_api.go
//go:generate go run ./internal/versiongen -o zz_generated_versions.go
