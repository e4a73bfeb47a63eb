//go:build mutant_oom_from_sigkill

package mutant

// OOMFromSigkill is true in the mutant build mutant_oom_from_sigkill: an instance that dies of SIGKILL while its container has a memory limit is reported oomKilled, whoever sent the signal (breaks STAT-004).
const OOMFromSigkill = true
