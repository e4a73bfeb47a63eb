//go:build !mutant_deletion_interrupts_delivery

package mutant

// DeletionInterruptsDelivery, when true (build tag mutant_deletion_interrupts_delivery), makes the runtime break a requirement: deleting a Notification kills its deliveries that are Running (breaks NOTIF-019).
const DeletionInterruptsDelivery = false
