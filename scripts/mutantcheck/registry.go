package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	catalog "podspec.dev/podspec/spec"
)

// Mutant is one mutant build of the reference runtime, as reference/mutants/mutants.yaml
// declares it.
type Mutant struct {
	// Name is the stem of its patch, reference/mutants/NAME.patch.
	Name string `yaml:"name"`
	// Breaks lists the requirements, or clauses of requirements (STAT-002.only-if-killed), whose specs
	// must catch it: a spec labelled req:ID, or clause:ID for a clause, fails in its It.
	Breaks []string `yaml:"breaks"`
	// LabelFilter and Focus select the conformance specs run against it.
	LabelFilter string `yaml:"labelFilter"`
	Focus       string `yaml:"focus"`
	// Match is a regular expression the catching failure message must match (may be empty).
	Match string `yaml:"match"`
	// What says in one line what the mutant gets wrong.
	What string `yaml:"what"`
	// ComplianceLevel is the --compliance-level of its conformance run: empty (must), or
	// "should" for a mutant that breaks only SHOULD requirements, whose graded specs fail a run
	// only at that level.
	ComplianceLevel string `yaml:"complianceLevel"`
}

// Pending is a runtime-level requirement, or a clause of one, that no mutant breaks yet, with the
// reason.
type Pending struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
}

// Registry is reference/mutants/mutants.yaml.
type Registry struct {
	Mutants []Mutant  `yaml:"mutants"`
	Pending []Pending `yaml:"pending"`
}

// loadRegistry reads and strictly decodes the registry file.
func loadRegistry(path string) (*Registry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	var r Registry
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// line renders a mutant as scripts/mutants.sh reads it:
// name;labelFilter;focus;breaks;match;complianceLevel.
func (m Mutant) line() string {
	return strings.Join([]string{m.Name, m.LabelFilter, m.Focus, strings.Join(m.Breaks, ","), m.Match, m.ComplianceLevel}, ";")
}

// graded reports whether the gate asks a mutant of a requirement: every runtime-level MUST, and
// every runtime-level SHOULD (the suite grades those at --compliance-level should).
func graded(r catalog.Requirement) bool {
	return r.RuntimeTested() && (r.Level == catalog.Must || r.Level == catalog.Should)
}

// sample picks n of the mutants, rotating with seed: consecutive seeds (commits, days) start at
// different offsets, so every mutant runs within ceil(len/n) seeds. n <= 0 or n >= len: all.
func sample(ms []Mutant, n int, seed string) []Mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	h := fnv.New32a()
	h.Write([]byte(seed))
	start := int(h.Sum32() % uint32(len(ms)))
	out := make([]Mutant, 0, n)
	for i := range n {
		out = append(out, ms[(start+i)%len(ms)])
	}
	return out
}

// tableRow matches a row of the mutant table in docs/mutants.md and captures the mutant's name
// from the link to its patch.
var tableRow = regexp.MustCompile("(?m)^\\| .+? \\| \\[`([a-z0-9_]+)`\\]\\(\\.\\./reference/mutants/([a-z0-9_]+)\\.patch\\) \\| ")

// gate checks the registry against the rule catalog, the patches in mutantDir and the table of
// docsFile: every graded runtime requirement has a mutant or a pending entry (not both), every
// name is known, every mutant has its patch and its row, and every patch has an entry.
func gate(r *Registry, mutantDir, docsFile string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	broken := map[string][]string{}
	names := map[string]bool{}
	for _, m := range r.Mutants {
		if names[m.Name] {
			bad("mutant %s: declared twice", m.Name)
		}
		names[m.Name] = true
		if _, err := os.Stat(filepath.Join(mutantDir, m.Name+".patch")); err != nil {
			bad("mutant %s: no patch %s", m.Name, m.Name+".patch")
		}
		if len(m.Breaks) == 0 {
			bad("mutant %s: breaks no requirement", m.Name)
		}
		if strings.TrimSpace(m.What) == "" {
			bad("mutant %s: says nothing in what", m.Name)
		}
		if m.Match != "" {
			if _, err := regexp.Compile(m.Match); err != nil {
				bad("mutant %s: match: %v", m.Name, err)
			}
		}
		if strings.ContainsAny(m.LabelFilter+m.Focus+m.Match, ";\n") {
			bad("mutant %s: labelFilter, focus and match must not contain ';' or a newline", m.Name)
		}
		if m.ComplianceLevel != "" && m.ComplianceLevel != "should" {
			bad("mutant %s: complianceLevel %q: want empty (must) or should", m.Name, m.ComplianceLevel)
		}
		selects, onlyShould := false, true
		for _, id := range m.Breaks {
			reqID, filter := id, catalog.ReqLabel+id
			req, ok := catalog.RequirementOf(id)
			if ok && req.ID != id {
				reqID, filter = req.ID, catalog.ClauseLabel+id
				broken[id] = append(broken[id], m.Name)
			}
			switch {
			case !ok:
				bad("mutant %s: breaks %s, which is no requirement nor clause", m.Name, id)
			case !req.RuntimeTested():
				bad("mutant %s: breaks %s, which is not a runtime-level requirement", m.Name, id)
			}
			if ok && req.Level != catalog.Should {
				onlyShould = false
			}
			broken[reqID] = append(broken[reqID], m.Name)
			if strings.Contains(m.LabelFilter, filter) || strings.Contains(m.LabelFilter, catalog.ReqLabel+reqID) {
				selects = true
			}
		}
		if onlyShould && len(m.Breaks) > 0 && m.ComplianceLevel != "should" {
			bad("mutant %s: breaks only SHOULD requirements, whose specs fail a run only at complianceLevel: should", m.Name)
		}
		if !selects {
			bad("mutant %s: its labelFilter %q selects none of the requirements it breaks", m.Name, m.LabelFilter)
		}
	}

	pending := map[string]bool{}
	for _, p := range r.Pending {
		req, ok := catalog.RequirementOf(p.ID)
		switch {
		case pending[p.ID]:
			bad("pending %s: listed twice", p.ID)
		case !ok:
			bad("pending %s: no such requirement nor clause", p.ID)
		case req.ID == p.ID && len(req.Clauses) > 0:
			bad("pending %s: the requirement has clauses; list the clauses no mutant breaks (%s)", p.ID, strings.Join(req.ClauseIDs(), ", "))
		case strings.TrimSpace(p.Reason) == "":
			bad("pending %s: no reason", p.ID)
		case len(broken[p.ID]) > 0:
			bad("pending %s: mutant %s breaks it now; remove the pending entry", p.ID, strings.Join(broken[p.ID], ", "))
		}
		pending[p.ID] = true
	}
	// Every clause of a graded requirement (the requirement itself when it has none) is broken by
	// a mutant that lists it, or pending: a mutant that lists a split requirement's own ID breaks
	// none of its clauses in particular.
	for _, req := range catalog.All() {
		if !graded(req) {
			continue
		}
		for _, id := range req.ClauseIDs() {
			if len(broken[id]) == 0 && !pending[id] {
				what := "no mutant breaks it"
				if id != req.ID {
					what = "no mutant lists this clause of it"
				}
				bad("%s (%s, runtime): %s and it is not pending", id, req.Level, what)
			}
		}
	}

	patches, err := filepath.Glob(filepath.Join(mutantDir, "*.patch"))
	if err != nil {
		return err
	}
	for _, f := range patches {
		if name := strings.TrimSuffix(filepath.Base(f), ".patch"); !names[name] {
			bad("patch %s has no entry in the registry", name)
		}
	}
	doc, err := os.ReadFile(docsFile)
	if err != nil {
		return err
	}
	rows := map[string]bool{}
	for _, m := range tableRow.FindAllStringSubmatch(string(doc), -1) {
		if m[1] != m[2] {
			bad("%s: the row of mutant %s links the patch of %s", docsFile, m[1], m[2])
		}
		rows[m[1]] = true
	}
	for name := range names {
		if !rows[name] {
			bad("mutant %s: no row in the table of %s", name, docsFile)
		}
	}
	for name := range rows {
		if !names[name] {
			bad("%s has a row for mutant %s, which the registry does not declare", docsFile, name)
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// tally counts the graded runtime requirements, their clauses (a requirement without clauses is
// one), and the clauses a mutant lists and those pending.
type tally struct{ requirements, clauses, broken, pending int }

// String is the count as the gate test logs it and docs/mutants.md records it.
func (t tally) String() string {
	return fmt.Sprintf("%d requirements, %d clauses, %d broken by a mutant, %d pending", t.requirements, t.clauses, t.broken, t.pending)
}

// coverage counts the graded runtime requirements and their clauses by mutant.
func coverage(r *Registry) tally {
	broken := map[string]bool{}
	for _, m := range r.Mutants {
		for _, id := range m.Breaks {
			broken[id] = true
		}
	}
	pending := map[string]bool{}
	for _, p := range r.Pending {
		pending[p.ID] = true
	}
	var t tally
	for _, req := range catalog.All() {
		if !graded(req) {
			continue
		}
		t.requirements++
		for _, id := range req.ClauseIDs() {
			t.clauses++
			switch {
			case broken[id]:
				t.broken++
			case pending[id]:
				t.pending++
			}
		}
	}
	return t
}
