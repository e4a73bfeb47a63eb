//go:build mutant_at_creation_not_awaited

package mutant

// AtCreationNotAwaited is true in the mutant build mutant_at_creation_not_awaited: a container of a pod targeted at its creation (AllPods) that is not yet eligible when the turn comes is skipped NotEligible at once, not delivered to when it first becomes eligible (breaks NOTIF-012).
const AtCreationNotAwaited = true
