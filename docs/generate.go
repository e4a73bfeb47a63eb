package docs

// The rule catalog (spec/catalog.go) and the rule table of validate.md are generated from
// requirements.yaml first, so that the traceability generator, which reads the catalog, sees a
// new requirement in the same `go generate ./...` (it runs this package before ./spec/).
//go:generate go run ../spec/internal/specgen -docs . -o ../spec/catalog.go

// traceability.md is generated from the registry, the validator corpus, the Go tests named after
// requirement IDs and a dry run of the conformance suite; docs/internal/tracegen's tests fail
// when it is stale.
//go:generate go run ./internal/tracegen -o traceability.md
