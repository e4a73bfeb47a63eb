//go:build !mutant_replaced_exit_counted

package mutant

// ReplacedExitCounted, when true (build tag mutant_replaced_exit_counted), makes the runtime break a requirement: the end of an instance replaced by an update is added to the exits that decide the pod result (breaks UPD-008).
const ReplacedExitCounted = false
