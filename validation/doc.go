// Package validation holds podspec's semantic checks: the rules a schema cannot say, such as
// unique container names across all container kinds, dependsOn references and cycles, condition
// prerequisites, volume references, signal names, where probes, hooks and notifiers make sense,
// and which fields an in-place update may change.
//
// The checks run on typed, defaulted objects (call SetDefaults first, as the validator pipeline
// does) and compose the way Kubernetes' validation does: each function takes the part of the
// object it checks and its *field.Path, and returns a field.ErrorList whose errors carry the rule
// ID from docs/requirements.yaml and a severity. Paths point at the offending leaf so that the
// pipeline can resolve them to a line and column.
//
// The package never panics, whatever the input (nil pointers, empty lists, huge numbers), and
// reads nothing but its arguments: no I/O, no package-level mutable state.
package validation
