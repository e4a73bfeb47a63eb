//go:build !mutant_skipped_notification_succeeds

package mutant

// SkippedNotificationSucceeds, when true (build tag mutant_skipped_notification_succeeds), makes the runtime break a requirement: a PreExistingPods Notification whose final pod records are all Skipped is Succeeded (breaks NOTIF-014).
const SkippedNotificationSucceeds = false
