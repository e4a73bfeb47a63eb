//go:build mutant_skipped_notification_succeeds

package mutant

// SkippedNotificationSucceeds is true in the mutant build mutant_skipped_notification_succeeds: a PreExistingPods Notification whose final pod records are all Skipped is Succeeded (breaks NOTIF-014).
const SkippedNotificationSucceeds = true
