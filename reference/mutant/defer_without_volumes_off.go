//go:build !mutant_defer_without_volumes

package mutant

// DeferWithoutVolumes, when true (build tag mutant_defer_without_volumes), makes the runtime break a requirement: defer containers are created without their mounts of the pod's emptyDir volumes (breaks DEFER-016).
const DeferWithoutVolumes = false
