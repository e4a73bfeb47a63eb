//go:build !mutant_notify_parallelism_exceeded

package mutant

// NotifyParallelismExceeded, when true (build tag mutant_notify_parallelism_exceeded), makes the runtime break a requirement: one more target pod than spec.parallelism has deliveries running at once (breaks NOTIF-006).
const NotifyParallelismExceeded = false
