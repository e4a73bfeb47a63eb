//go:build mutant_notify_parallelism_exceeded

package mutant

// NotifyParallelismExceeded is true in the mutant build mutant_notify_parallelism_exceeded: one more target pod than spec.parallelism has deliveries running at once (breaks NOTIF-006).
const NotifyParallelismExceeded = true
