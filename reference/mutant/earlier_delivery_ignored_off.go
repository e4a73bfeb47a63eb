//go:build !mutant_earlier_delivery_ignored

package mutant

// EarlierDeliveryIgnored, when true (build tag mutant_earlier_delivery_ignored), makes the runtime break a requirement: a delivery does not wait for the deliveries of earlier Notifications of the same notifier to the same container (breaks HB-017).
const EarlierDeliveryIgnored = false
