//go:build !mutant_memory_limit_decimal

package mutant

// MemoryLimitDecimal, when true (build tag mutant_memory_limit_decimal), makes the runtime break a requirement: a memory limit in binary units (Mi, Gi) is applied as decimal ones: 256Mi becomes 256000000 bytes (breaks RES-002).
const MemoryLimitDecimal = false
