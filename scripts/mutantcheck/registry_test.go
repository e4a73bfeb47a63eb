package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	catalog "podspec.dev/podspec/spec"
)

const (
	registryFile = "../../reference/mutants/mutants.yaml"
	mutantDir    = "../../reference/mutants"
	mutantsDoc   = "../../docs/mutants.md"
)

// TestTheRegistryCoversEveryRuntimeRequirement is the gate of docs/mutants.md: every
// runtime-level MUST and SHOULD is broken by a declared mutant or pending with a reason, and the
// registry, the patches of reference/mutants and the table of docs/mutants.md agree.
func TestTheRegistryCoversEveryRuntimeRequirement(t *testing.T) {
	reg, err := loadRegistry(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := gate(reg, mutantDir, mutantsDoc); err != nil {
		t.Fatal(err)
	}
	t.Logf("runtime-level requirements (MUST and SHOULD): %s", coverage(reg))
}

// TestTheGateFails holds the gate to each way the registry can be wrong.
func TestTheGateFails(t *testing.T) {
	base, err := loadRegistry(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	clone := func() *Registry {
		r := &Registry{Mutants: append([]Mutant(nil), base.Mutants...), Pending: append([]Pending(nil), base.Pending...)}
		return r
	}
	cases := map[string]struct {
		change func(*Registry)
		want   string
	}{
		// Every mutant that breaks the last mutant's first requirement is taken out (the pending
		// list may be empty, as it is since every runtime-level requirement has a mutant).
		"a requirement in neither list": {func(r *Registry) {
			id := r.Mutants[len(r.Mutants)-1].Breaks[0]
			r.Mutants = slices.DeleteFunc(r.Mutants, func(m Mutant) bool { return slices.Contains(m.Breaks, id) })
			r.Pending = slices.DeleteFunc(r.Pending, func(p Pending) bool { return p.ID == id })
		}, "no mutant breaks it and it is not pending"},
		"a stale pending entry": {func(r *Registry) {
			r.Pending = append(r.Pending, Pending{ID: r.Mutants[0].Breaks[0], Reason: "x"})
		}, "remove the pending entry"},
		"an unknown requirement": {func(r *Registry) { r.Mutants[0].Breaks = append([]string{"NOPE-001"}, r.Mutants[0].Breaks...) }, "which is no requirement"},
		"a validator rule":       {func(r *Registry) { r.Mutants[0].Breaks = append(r.Mutants[0].Breaks, "MAN-001") }, "not a runtime-level requirement"},
		"a filter selecting none": {func(r *Registry) {
			m := r.Mutants[0]
			m.LabelFilter = "req:ID-004"
			r.Mutants[0] = m
		}, "selects none"},
		"a mutant without patch": {func(r *Registry) {
			r.Mutants = append(r.Mutants, Mutant{Name: "no_such_patch", Breaks: []string{"ID-004"}, LabelFilter: "req:ID-004", What: "x"})
		}, "no patch"},
		"a patch without entry": {func(r *Registry) { r.Mutants = r.Mutants[1:] }, "has no entry in the registry"},
		"a compliance level that is neither must nor should": {func(r *Registry) {
			m := r.Mutants[0]
			m.ComplianceLevel = "may"
			r.Mutants[0] = m
		}, "want empty (must) or should"},
		"a SHOULD-only mutant run at level must": {func(r *Registry) {
			r.Mutants = append(r.Mutants, Mutant{Name: "should_only", Breaks: []string{"NOTIF-007"}, LabelFilter: "req:NOTIF-007", What: "x"})
		}, "whose specs fail a run only at complianceLevel: should"},
		"a clause in neither list": {func(r *Registry) {
			id := firstClause(r)
			for i, m := range r.Mutants {
				r.Mutants[i].Breaks = slices.DeleteFunc(slices.Clone(m.Breaks), func(b string) bool { return b == id })
			}
			r.Mutants = slices.DeleteFunc(r.Mutants, func(m Mutant) bool { return len(m.Breaks) == 0 })
		}, "no mutant lists this clause of it"},
		"a stale pending clause": {func(r *Registry) {
			r.Pending = append(r.Pending, Pending{ID: firstClause(r), Reason: "x"})
		}, "remove the pending entry"},
		"a pending requirement that has clauses": {func(r *Registry) {
			c, _ := catalog.LookupClause(firstClause(r))
			r.Pending = append(r.Pending, Pending{ID: c.Requirement, Reason: "x"})
		}, "the requirement has clauses"},
		"an unknown clause": {func(r *Registry) { r.Mutants[0].Breaks = append(slices.Clone(r.Mutants[0].Breaks), firstClause(r)+"x") }, "no requirement nor clause"},
		"a pending entry without reason": {func(r *Registry) {
			r.Pending = append(r.Pending, Pending{ID: "SUP-001", Reason: " "})
		}, "pending SUP-001: no reason"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := clone()
			c.change(r)
			err := gate(r, mutantDir, mutantsDoc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("gate = %v, want an error containing %q", err, c.want)
			}
		})
	}
	t.Run("a mutant without a row in the docs", func(t *testing.T) {
		doc := filepath.Join(t.TempDir(), "mutants.md")
		b, err := os.ReadFile(mutantsDoc)
		if err != nil {
			t.Fatal(err)
		}
		kept := []string{}
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.Contains(l, "[`"+base.Mutants[0].Name+"`]") {
				kept = append(kept, l)
			}
		}
		if err := os.WriteFile(doc, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := gate(clone(), mutantDir, doc); err == nil || !strings.Contains(err.Error(), "no row in the table") {
			t.Fatalf("gate = %v, want a missing row", err)
		}
	})
}

// firstClause is the first clause a mutant of the registry lists.
func firstClause(r *Registry) string {
	for _, m := range r.Mutants {
		for _, id := range m.Breaks {
			if _, ok := catalog.LookupClause(id); ok {
				return id
			}
		}
	}
	panic("no mutant of the registry lists a clause")
}

// TestSampleRotates checks that a sample takes n distinct mutants and that seeds rotate it.
func TestSampleRotates(t *testing.T) {
	ms := make([]Mutant, 7)
	for i := range ms {
		ms[i].Name = string(rune('a' + i))
	}
	if got := sample(ms, 0, "x"); len(got) != 7 {
		t.Fatalf("n=0 gives %d mutants, want all 7", len(got))
	}
	seen := map[string]bool{}
	starts := map[string]bool{}
	for i := range 40 {
		got := sample(ms, 3, string(rune('A'+i)))
		if len(got) != 3 {
			t.Fatalf("sample of 3 has %d", len(got))
		}
		names := map[string]bool{}
		for _, m := range got {
			names[m.Name] = true
			seen[m.Name] = true
		}
		if len(names) != 3 {
			t.Fatalf("sample repeats a mutant: %v", got)
		}
		starts[got[0].Name] = true
	}
	if len(seen) != 7 || len(starts) < 3 {
		t.Fatalf("40 seeds reached %d mutants from %d starts", len(seen), len(starts))
	}
}
