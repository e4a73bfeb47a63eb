//go:build mutant_undeclared_runs_first_notifier

package mutant

// UndeclaredRunsFirstNotifier is true in the mutant build mutant_undeclared_runs_first_notifier: a container that does not declare the Notification's notifier runs the first notifier it declares (breaks NTF-004).
const UndeclaredRunsFirstNotifier = true
