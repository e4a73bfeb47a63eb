//go:build mutant_defer_without_volumes

package mutant

// DeferWithoutVolumes is true in the mutant build mutant_defer_without_volumes: defer containers are created without their mounts of the pod's emptyDir volumes (breaks DEFER-016).
const DeferWithoutVolumes = true
