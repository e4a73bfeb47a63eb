package spec

// catalog.go and the rule table of docs/validate.md are generated from docs/requirements.yaml;
// spec/internal/specgen's tests fail when either is stale.
//go:generate go run ./internal/specgen -docs ../docs -o catalog.go
