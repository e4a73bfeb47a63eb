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
	// Breaks lists the requirements whose specs must catch it.
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

// Pending is a runtime-level requirement that no mutant breaks yet, with the reason.
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
			req, ok := catalog.Lookup(id)
			switch {
			case !ok:
				bad("mutant %s: breaks %s, which is no requirement", m.Name, id)
			case !req.RuntimeTested():
				bad("mutant %s: breaks %s, which is not a runtime-level requirement", m.Name, id)
			}
			if ok && req.Level != catalog.Should {
				onlyShould = false
			}
			broken[id] = append(broken[id], m.Name)
			if strings.Contains(m.LabelFilter, "req:"+id) {
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
		switch {
		case pending[p.ID]:
			bad("pending %s: listed twice", p.ID)
		case !catalog.Known(p.ID):
			bad("pending %s: no such requirement", p.ID)
		case strings.TrimSpace(p.Reason) == "":
			bad("pending %s: no reason", p.ID)
		case len(broken[p.ID]) > 0:
			bad("pending %s: mutant %s breaks it now; remove the pending entry", p.ID, strings.Join(broken[p.ID], ", "))
		}
		pending[p.ID] = true
	}
	for _, req := range catalog.All() {
		if graded(req) && len(broken[req.ID]) == 0 && !pending[req.ID] {
			bad("%s (%s, runtime): no mutant breaks it and it is not pending", req.ID, req.Level)
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

// coverage counts the graded runtime requirements and those a mutant breaks.
func coverage(r *Registry) (broken, total int) {
	ids := map[string]bool{}
	for _, m := range r.Mutants {
		for _, id := range m.Breaks {
			ids[id] = true
		}
	}
	for _, req := range catalog.All() {
		if graded(req) {
			total++
			if ids[req.ID] {
				broken++
			}
		}
	}
	return broken, total
}
