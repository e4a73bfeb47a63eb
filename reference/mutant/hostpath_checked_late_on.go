//go:build mutant_hostpath_checked_late

package mutant

// HostPathCheckedLate is true in the mutant build mutant_hostpath_checked_late: a pod whose hostPath does not exist is created, and only its container fails to start (breaks VOL-008).
const HostPathCheckedLate = true
