//go:build !mutant_waiting_reason_crashloop

package mutant

// WaitingReasonCrashLoop, when true (build tag mutant_waiting_reason_crashloop), makes the runtime break a requirement: a container waiting for its restart is reported with Kubernetes' reason CrashLoopBackOff instead of BackOff (breaks RST-010).
const WaitingReasonCrashLoop = false
