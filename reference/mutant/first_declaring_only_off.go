//go:build !mutant_first_declaring_only

package mutant

// FirstDeclaringOnly, when true (build tag mutant_first_declaring_only), makes the runtime break a requirement: a Notification is delivered only to the first container of the pod that declares the notifier (breaks NTF-014).
const FirstDeclaringOnly = false
