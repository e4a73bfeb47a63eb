//go:build !mutant_running_not_persisted

package mutant

// RunningNotPersisted, when true (build tag mutant_running_not_persisted), makes the runtime break a requirement: a delivery is not persisted Running before its action starts (breaks NTF-011).
const RunningNotPersisted = false
