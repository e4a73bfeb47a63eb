//go:build mutant_lost_delivery_rerun

package mutant

// LostDeliveryRerun is true in the mutant build mutant_lost_delivery_rerun: a delivery that was Running when its supervisor was lost runs again after adoption instead of being recorded Failed ExitStatusLost (breaks NTF-012).
const LostDeliveryRerun = true
