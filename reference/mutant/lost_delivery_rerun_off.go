//go:build !mutant_lost_delivery_rerun

package mutant

// LostDeliveryRerun, when true (build tag mutant_lost_delivery_rerun), makes the runtime break a requirement: a delivery that was Running when its supervisor was lost runs again after adoption instead of being recorded Failed ExitStatusLost (breaks NTF-012).
const LostDeliveryRerun = false
