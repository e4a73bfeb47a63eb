//go:build !mutant_started_before_startup_probe

package mutant

// StartedBeforeStartupProbe, when true (build tag mutant_started_before_startup_probe), makes the runtime break a requirement: a container is reported started once its postStart hook succeeded, before its startup probe passed (breaks DEP-007).
const StartedBeforeStartupProbe = false
