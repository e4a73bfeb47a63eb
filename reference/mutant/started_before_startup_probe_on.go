//go:build mutant_started_before_startup_probe

package mutant

// StartedBeforeStartupProbe is true in the mutant build mutant_started_before_startup_probe: a container is reported started once its postStart hook succeeded, before its startup probe passed (breaks DEP-007).
const StartedBeforeStartupProbe = true
