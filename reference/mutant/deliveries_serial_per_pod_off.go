//go:build !mutant_deliveries_serial_per_pod

package mutant

// DeliveriesSerialPerPod, when true (build tag mutant_deliveries_serial_per_pod), makes the runtime break a requirement: the deliveries to a pod run one at a time, whatever their container and notifier (breaks HB-021).
const DeliveriesSerialPerPod = false
