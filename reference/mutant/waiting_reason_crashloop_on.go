//go:build mutant_waiting_reason_crashloop

package mutant

// WaitingReasonCrashLoop is true in the mutant build mutant_waiting_reason_crashloop: a container waiting for its restart is reported with Kubernetes' reason CrashLoopBackOff instead of BackOff (breaks RST-010).
const WaitingReasonCrashLoop = true
