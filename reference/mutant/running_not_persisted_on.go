//go:build mutant_running_not_persisted

package mutant

// RunningNotPersisted is true in the mutant build mutant_running_not_persisted: a delivery is not persisted Running before its action starts (breaks NTF-011).
const RunningNotPersisted = true
