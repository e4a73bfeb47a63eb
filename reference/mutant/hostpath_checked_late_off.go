//go:build !mutant_hostpath_checked_late

package mutant

// HostPathCheckedLate, when true (build tag mutant_hostpath_checked_late), makes the runtime break a requirement: a pod whose hostPath does not exist is created, and only its container fails to start (breaks VOL-008).
const HostPathCheckedLate = false
