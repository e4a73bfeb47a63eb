//go:build mutant_restart_resize_in_place

package mutant

// RestartResizeInPlace is true in the mutant build mutant_restart_resize_in_place: a resources change whose resizePolicy is RestartContainer is applied in place, without the restart (breaks UPD-011).
const RestartResizeInPlace = true
