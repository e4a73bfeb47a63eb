// Package spec is the rule catalog: every requirement of podspec's specification as a typed
// value, generated from docs/requirements.yaml and the anchors of docs/spec.md and
// docs/spec/*.md by `go generate ./spec/` (catalog.go; a test fails when it is stale).
//
// Each requirement has a constant for its ID (spec.MAN001 is "MAN-001"), its RFC 2119 level,
// the severity a finding under it has (derived from the level), its sentence verbatim from the
// spec, the spec file that anchors it, its area, capability profile, enforcers and the spec
// version that introduced it. Every other package that names a rule, its severity or its text
// reads it from here: the validator's engines, `podspec rules`, the reports, the traceability
// generator and the conformance suite. The package imports nothing of podspec, so any package
// can depend on it.
package spec

import (
	"slices"
	"strings"
)

// Levels of a requirement: the RFC 2119 key word of its sentence (MUST NOT counts as MUST,
// SHOULD NOT as SHOULD).
const (
	Must   = "MUST"
	Should = "SHOULD"
	May    = "MAY"
)

// Enforcers of a requirement.
const (
	// EnforcedByValidator marks a requirement the validator checks. Alone, it makes the
	// requirement a rule that `podspec validate` reports findings under (see IsRule).
	EnforcedByValidator = "validator"
	// EnforcedByRuntime marks a requirement a runtime must meet: a conformance spec labelled
	// req:<ID>, a Go test named after it on the reference runtime, or an entry in the suite's
	// pending list must exist for it (see docs/traceability.md).
	EnforcedByRuntime = "runtime"
	// EnforcedByConverter marks a requirement on a tool that converts manifests between podspec
	// and another format (`podspec convert`, `podspec run` of a Kubernetes object), not on a
	// runtime under certification: a Go test named after it on podspec's converter must exist for
	// it (see docs/traceability.md), and no runtime's coverage matrix lists it.
	EnforcedByConverter = "converter"
)

// Capability profiles a requirement can belong to.
const (
	ProfileCore     = "core"
	ProfileDefer    = "defer"
	ProfileNotifier = "notifier"
	ProfileUpdate   = "update"
	ProfileGC       = "gc"
	// ProfileKubernetes holds the rules podspec applies to Kubernetes objects (spec/kubernetes.md).
	ProfileKubernetes = "kubernetes"
)

// Severity of a finding reported under a requirement: error or warning.
type Severity string

// Severities. A MUST requirement's findings are errors, a SHOULD requirement's warnings; the
// generator refuses a validator rule of level MAY.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	// Note is the severity of a SHOULD rule's finding where the input is known to be read as
	// intended (an octal file mode in a Kubernetes object, MAN-008): advice, never counted as a
	// warning nor failing a run.
	Note Severity = "note"
)

// SeverityForLevel is the severity of findings under a requirement of the given level: Error for
// MUST, Warning otherwise.
func SeverityForLevel(level string) Severity {
	if level == Must {
		return Error
	}
	return Warning
}

// Requirement is one normative sentence of the specification.
type Requirement struct {
	// ID is the stable identifier, AREA-NNN (e.g. STOP-006); it is also the anchor in the spec.
	ID string `json:"id"`
	// Level is Must, Should or May.
	Level string `json:"level"`
	// Severity is the severity of a finding under this requirement, derived from Level.
	Severity Severity `json:"severity"`
	// Area is the ID's prefix (e.g. STOP).
	Area string `json:"area"`
	// Text is the sentence, verbatim from the spec (Markdown inline code kept).
	Text string `json:"text"`
	// EnforcedBy lists EnforcedByValidator and/or EnforcedByRuntime, or EnforcedByConverter alone.
	EnforcedBy []string `json:"enforcedBy"`
	// Profile is the capability profile: core, defer, notifier, update, gc or kubernetes.
	Profile string `json:"profile"`
	// Since is the specification version that introduced the requirement.
	Since string `json:"since"`
	// Source is the spec file that holds the requirement's anchor, relative to docs/
	// (e.g. "spec/stop.md").
	Source string `json:"source"`
	// Clauses are the parts of the sentence the gates count on their own (cases, each direction
	// of an "if and only if", each field it names), or none for a requirement that is one clause.
	Clauses []Clause `json:"clauses,omitempty"`
}

// Clause is one part of a requirement's sentence that a runtime can break while meeting the
// rest: a conformance spec labelled with it checks it, a mutant that lists it breaks it.
type Clause struct {
	// ID is the requirement's ID, a dot and the key (e.g. STAT-002.only-if-killed); it is also the value
	// of the label clause:ID on a conformance spec.
	ID string `json:"id"`
	// Requirement is the ID of the requirement the clause belongs to.
	Requirement string `json:"requirement"`
	// Key names the clause within its requirement: lower-case words joined by hyphens.
	Key string `json:"key"`
	// Text is the words of the sentence the clause covers, verbatim.
	Text string `json:"text"`
}

// ClauseIDs are the IDs the gates count for this requirement: its clauses' IDs, or its own ID
// when it has no clauses.
func (r Requirement) ClauseIDs() []string {
	if len(r.Clauses) == 0 {
		return []string{r.ID}
	}
	out := make([]string, len(r.Clauses))
	for i, c := range r.Clauses {
		out[i] = c.ID
	}
	return out
}

// ValidatorRule reports whether the validator checks this requirement.
func (r Requirement) ValidatorRule() bool {
	return slices.Contains(r.EnforcedBy, EnforcedByValidator)
}

// RuntimeTested reports whether the conformance suite tests this requirement on a runtime.
func (r Requirement) RuntimeTested() bool {
	return slices.Contains(r.EnforcedBy, EnforcedByRuntime)
}

// ConverterTested reports whether this requirement is on podspec's manifest converter.
func (r Requirement) ConverterTested() bool {
	return slices.Contains(r.EnforcedBy, EnforcedByConverter)
}

// IsRule reports whether `podspec validate` reports findings under this requirement's ID: the
// validator enforces it and no runtime does. A requirement both enforce (MAN-010, UPD-003) is a
// runtime's duty to refuse what the validator finds; its findings carry the validator's rules.
func (r Requirement) IsRule() bool {
	return r.ValidatorRule() && !r.RuntimeTested()
}

// Link is the requirement's location in the repository, e.g. "docs/spec/stop.md#STOP-006".
func (r Requirement) Link() string {
	return "docs/" + r.Source + "#" + r.ID
}

func (r Requirement) clone() Requirement {
	r.EnforcedBy = slices.Clone(r.EnforcedBy)
	r.Clauses = slices.Clone(r.Clauses)
	return r
}

// byID indexes requirements by ID.
var byID = func() map[string]int {
	m := make(map[string]int, len(requirements))
	for i, r := range requirements {
		m[r.ID] = i
	}
	return m
}()

// byClause indexes clauses by ID: the requirement's index and the clause's.
var byClause = func() map[string][2]int {
	m := map[string][2]int{}
	for i, r := range requirements {
		for j, c := range r.Clauses {
			m[c.ID] = [2]int{i, j}
		}
	}
	return m
}()

// LookupClause returns the clause with the given ID (STAT-002.only-if-killed), and false for an ID that
// names no clause (a requirement's own ID included).
func LookupClause(id string) (Clause, bool) {
	at, ok := byClause[id]
	if !ok {
		return Clause{}, false
	}
	return requirements[at[0]].Clauses[at[1]], true
}

// Labels by which a conformance spec names what it checks.
const (
	// ReqLabel is the key of the label that names a requirement a spec checks: req:STAT-002.
	ReqLabel = "req:"
	// ClauseLabel is the key of the label that names a clause a spec checks:
	// clause:STAT-002.only-if-killed.
	ClauseLabel = "clause:"
)

// LabelID returns the requirement or clause ID a conformance spec's label names (req:ID or
// clause:ID), and false for any other label.
func LabelID(label string) (string, bool) {
	for _, key := range [...]string{ReqLabel, ClauseLabel} {
		if id, ok := strings.CutPrefix(label, key); ok {
			return id, true
		}
	}
	return "", false
}

// RequirementOf returns the requirement an ID names: the requirement itself for a requirement's
// ID, the requirement the clause belongs to for a clause's ID (STAT-002.only-if-killed), and false
// for an ID that names neither. A caller that must tell the two apart compares the result's ID
// with id.
func RequirementOf(id string) (Requirement, bool) {
	if at, ok := byClause[id]; ok {
		return requirements[at[0]].clone(), true
	}
	return Lookup(id)
}

// All returns every requirement in registry order (the order of the spec's documents). The
// slice is a fresh copy the caller may modify.
func All() []Requirement {
	out := make([]Requirement, len(requirements))
	for i, r := range requirements {
		out[i] = r.clone()
	}
	return out
}

// Rules returns the requirements `podspec validate` reports findings under (IsRule), in
// registry order.
func Rules() []Requirement {
	var out []Requirement
	for _, r := range requirements {
		if r.IsRule() {
			out = append(out, r.clone())
		}
	}
	return out
}

// Lookup returns the requirement with the given ID, and false for an unknown one.
func Lookup(id string) (Requirement, bool) {
	i, ok := byID[id]
	if !ok {
		return Requirement{}, false
	}
	return requirements[i].clone(), true
}

// Known reports whether id is a requirement ID.
func Known(id string) bool {
	_, ok := byID[id]
	return ok
}

// SeverityOf is the severity of a finding under the rule id. An unknown ID is an Error: the
// catalog's tests hold every rule the code reports to a known ID.
func SeverityOf(id string) Severity {
	if i, ok := byID[id]; ok {
		return requirements[i].Severity
	}
	return Error
}
