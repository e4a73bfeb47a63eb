//go:build mutant_deleted_notification_delivered

package mutant

// DeletedNotificationDelivered is true in the mutant build mutant_deleted_notification_delivered: a delivery that waits when its Notification is deleted still starts once its wait ends (breaks NOTIF-020).
const DeletedNotificationDelivered = true
