//go:build mutant_resize_restarts

package mutant

// ResizeRestarts is true in the mutant build mutant_resize_restarts: a resources change whose resizePolicy is NotRequired restarts the container instead of resizing it (breaks UPD-010).
const ResizeRestarts = true
