//go:build !mutant_core_dump_not_reported

package mutant

// CoreDumpNotReported, when true (build tag mutant_core_dump_not_reported), makes the runtime break a requirement: coreDumped is false although the wait status reports a core dump (breaks STAT-005).
const CoreDumpNotReported = false
