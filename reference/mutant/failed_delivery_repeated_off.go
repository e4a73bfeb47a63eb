//go:build !mutant_failed_delivery_repeated

package mutant

// FailedDeliveryRepeated, when true (build tag mutant_failed_delivery_repeated), makes the runtime break a requirement: an exec delivery whose action fails (HandlerFailed) runs once more in the same container instance (breaks NTF-010).
const FailedDeliveryRepeated = false
