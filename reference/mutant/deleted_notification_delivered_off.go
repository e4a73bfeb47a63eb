//go:build !mutant_deleted_notification_delivered

package mutant

// DeletedNotificationDelivered, when true (build tag mutant_deleted_notification_delivered), makes the runtime break a requirement: a delivery that waits when its Notification is deleted still starts once its wait ends (breaks NOTIF-020).
const DeletedNotificationDelivered = false
