//go:build mutant_earlier_delivery_ignored

package mutant

// EarlierDeliveryIgnored is true in the mutant build mutant_earlier_delivery_ignored: a delivery does not wait for the deliveries of earlier Notifications of the same notifier to the same container (breaks HB-017).
const EarlierDeliveryIgnored = true
