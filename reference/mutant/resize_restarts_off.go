//go:build !mutant_resize_restarts

package mutant

// ResizeRestarts, when true (build tag mutant_resize_restarts), makes the runtime break a requirement: a resources change whose resizePolicy is NotRequired restarts the container instead of resizing it (breaks UPD-010).
const ResizeRestarts = false
