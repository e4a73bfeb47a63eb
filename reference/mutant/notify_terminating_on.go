//go:build mutant_notify_terminating

package mutant

// NotifyTerminating is true in the mutant build mutant_notify_terminating: a Notification is delivered to a pod that is terminating instead of being Skipped with reason PodTerminating (breaks NOTIF-008).
const NotifyTerminating = true
