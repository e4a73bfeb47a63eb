//go:build mutant_deliveries_serial_per_pod

package mutant

// DeliveriesSerialPerPod is true in the mutant build mutant_deliveries_serial_per_pod: the deliveries to a pod run one at a time, whatever their container and notifier (breaks HB-021).
const DeliveriesSerialPerPod = true
