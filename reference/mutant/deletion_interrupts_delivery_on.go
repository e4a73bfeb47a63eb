//go:build mutant_deletion_interrupts_delivery

package mutant

// DeletionInterruptsDelivery is true in the mutant build mutant_deletion_interrupts_delivery: deleting a Notification kills its deliveries that are Running (breaks NOTIF-019).
const DeletionInterruptsDelivery = true
