//go:build !mutant_notify_terminating

package mutant

// NotifyTerminating, when true (build tag mutant_notify_terminating), makes the runtime break a requirement: a Notification is delivered to a pod that is terminating instead of being Skipped with reason PodTerminating (breaks NOTIF-008).
const NotifyTerminating = false
