//go:build !mutant_oom_from_sigkill

package mutant

// OOMFromSigkill, when true (build tag mutant_oom_from_sigkill), makes the runtime break a requirement: an instance that dies of SIGKILL while its container has a memory limit is reported oomKilled, whoever sent the signal (breaks STAT-004).
const OOMFromSigkill = false
