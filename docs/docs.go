// Package docs embeds podspec's normative specification (spec.md and spec/*.md) and its
// requirements registry (requirements.yaml).
//
// Every normative sentence of the specification carries an ID (AREA-NNN) and is listed once in
// the registry with its RFC 2119 level, its area, the verbatim sentence, the capability profile it
// belongs to and who enforces it (the validator, a runtime conformance test, or both). The
// registry is read by one generator only: `go generate ./spec/` turns it into the rule catalog,
// package spec, which everything else reads. This package's tests hold the registry and the
// spec text to each other (every anchor registered once, the level its sentence's key word, the
// text verbatim).
//
// What checks each requirement — validator corpus cases, Go tests named after it, conformance
// specs labelled with it — is listed in traceability.md, which `go generate ./docs/` writes (the
// generator, internal/tracegen, imports the conformance suite; this package imports neither it
// nor the runtime).
package docs

import (
	"embed"
	"io/fs"
)

//go:embed requirements.yaml spec.md spec/*.md
var files embed.FS

// Spec returns the embedded specification: spec.md and spec/*.md, plus requirements.yaml.
func Spec() fs.FS { return files }
