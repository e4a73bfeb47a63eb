package docs

// traceability.md is generated from the registry, the validator corpus, the Go tests named after
// requirement IDs and a dry run of the conformance suite; docs/internal/tracegen's tests fail
// when it is stale.
//go:generate go run ./internal/tracegen -o traceability.md
