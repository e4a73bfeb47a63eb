//go:build !mutant_at_creation_not_awaited

package mutant

// AtCreationNotAwaited, when true (build tag mutant_at_creation_not_awaited), makes the runtime break a requirement: a container of a pod targeted at its creation (AllPods) that is not yet eligible when the turn comes is skipped NotEligible at once, not delivered to when it first becomes eligible (breaks NOTIF-012).
const AtCreationNotAwaited = false
