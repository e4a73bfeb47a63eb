//go:build !mutant_deleted_earlier_not_awaited

package mutant

// DeletedEarlierNotAwaited, when true (build tag mutant_deleted_earlier_not_awaited), makes the runtime break a requirement: a delivery does not wait for a running delivery of an earlier Notification of the same notifier to the same container once that Notification was deleted (breaks HB-017).
const DeletedEarlierNotAwaited = false
