//go:build mutant_failed_delivery_repeated

package mutant

// FailedDeliveryRepeated is true in the mutant build mutant_failed_delivery_repeated: an exec delivery whose action fails (HandlerFailed) runs once more in the same container instance (breaks NTF-010).
const FailedDeliveryRepeated = true
