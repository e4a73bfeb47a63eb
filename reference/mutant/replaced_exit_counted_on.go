//go:build mutant_replaced_exit_counted

package mutant

// ReplacedExitCounted is true in the mutant build mutant_replaced_exit_counted: the end of an instance replaced by an update is added to the exits that decide the pod result (breaks UPD-008).
const ReplacedExitCounted = true
