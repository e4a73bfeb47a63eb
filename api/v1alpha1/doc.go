// Package v1alpha1 holds the podspec.dev/v1alpha1 API types: Pod, Notification, their statuses
// and the per-pod notification record, with the defaults the spec (docs/spec.md) assigns.
//
// Field names follow Kubernetes where Kubernetes has the field, so a Kubernetes user reads a
// podspec manifest without a manual. The types carry no validation logic: structural rules live
// in cue/ and schema/, the rules a schema cannot say live in package validation.
package v1alpha1
