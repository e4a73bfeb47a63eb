//go:build !mutant_restart_resize_in_place

package mutant

// RestartResizeInPlace, when true (build tag mutant_restart_resize_in_place), makes the runtime break a requirement: a resources change whose resizePolicy is RestartContainer is applied in place, without the restart (breaks UPD-011).
const RestartResizeInPlace = false
