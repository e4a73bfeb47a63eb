//go:build !mutant_oom_only_main_sigkill

package mutant

// OOMOnlyMainSigkill, when true (build tag mutant_oom_only_main_sigkill), makes the runtime break a requirement: oomKilled is set only when the instance's own process dies of SIGKILL, not when the OOM killer killed another of its processes and the main process exited with a code (breaks STAT-004).
const OOMOnlyMainSigkill = false
