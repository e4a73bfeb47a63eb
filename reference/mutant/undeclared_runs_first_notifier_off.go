//go:build !mutant_undeclared_runs_first_notifier

package mutant

// UndeclaredRunsFirstNotifier, when true (build tag mutant_undeclared_runs_first_notifier), makes the runtime break a requirement: a container that does not declare the Notification's notifier runs the first notifier it declares (breaks NTF-004).
const UndeclaredRunsFirstNotifier = false
