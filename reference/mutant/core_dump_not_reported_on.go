//go:build mutant_core_dump_not_reported

package mutant

// CoreDumpNotReported is true in the mutant build mutant_core_dump_not_reported: coreDumped is false although the wait status reports a core dump (breaks STAT-005).
const CoreDumpNotReported = true
