// Package finding is the one shape every validation engine reports in: a rule ID, a severity,
// a field path and a source position. Engines (schema, CUE, semantic) produce findings; the
// report package renders them. It has no dependencies on either.
package finding

import (
	"sort"

	"podspec.dev/podspec/spec"
)

// Severity of a finding: error or warning. It is the severity of the finding's rule in the rule
// catalog (spec.SeverityOf), never chosen where the finding is made.
type Severity = spec.Severity

// Severities.
const (
	Error   = spec.Error
	Warning = spec.Warning
	Note    = spec.Note
)

// Position is a place in a source file. Line and Column are 1-based; 0 means unknown, and
// renderers must then omit the position rather than invent one.
type Position struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Known reports whether the position has a line.
func (p Position) Known() bool { return p.Line > 0 }

// Finding is one problem found in one document.
type Finding struct {
	// Rule is the stable rule ID (a requirement ID from docs/requirements.yaml).
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Engine names what found it: decode, schema, cue or semantic.
	Engine string `json:"engine"`
	// Path is the field path (spec.containers[0].name); empty for whole-document findings.
	Path    string   `json:"path,omitempty"`
	Message string   `json:"message"`
	Pos     Position `json:"position"`
	// Document is the 0-based index of the document in its file.
	Document int `json:"document"`
	// Suppressed is set when an annotation suppressed the finding; Reason says why.
	Suppressed       bool   `json:"suppressed,omitempty"`
	SuppressedReason string `json:"suppressedReason,omitempty"`
}

// Sort orders findings by file, line, column, rule and message, so output is deterministic
// whatever the engines' or workers' order.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Document != b.Document {
			return a.Document < b.Document
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column < b.Pos.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}
