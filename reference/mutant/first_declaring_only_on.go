//go:build mutant_first_declaring_only

package mutant

// FirstDeclaringOnly is true in the mutant build mutant_first_declaring_only: a Notification is delivered only to the first container of the pod that declares the notifier (breaks NTF-014).
const FirstDeclaringOnly = true
