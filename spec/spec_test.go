package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestSeverityIsDerivedFromTheLevel(t *testing.T) {
	for _, r := range All() {
		if r.Severity != SeverityForLevel(r.Level) {
			t.Errorf("%s: level %s, severity %s", r.ID, r.Level, r.Severity)
		}
		if got := SeverityOf(r.ID); got != r.Severity {
			t.Errorf("SeverityOf(%s) = %s, want %s", r.ID, got, r.Severity)
		}
	}
	for level, want := range map[string]Severity{Must: Error, Should: Warning, May: Warning} {
		if got := SeverityForLevel(level); got != want {
			t.Errorf("SeverityForLevel(%s) = %s, want %s", level, got, want)
		}
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		name   string
		id     string
		wantOK bool
	}{
		{"a known requirement is found", STOP001, true},
		{"an unknown ID is not found", "STOP-999", false},
		{"an ID in lower case is not found", "stop-001", false},
		{"the empty string is not found", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Lookup(tc.id)
			if ok != tc.wantOK || Known(tc.id) != tc.wantOK {
				t.Fatalf("Lookup(%q) ok = %v, Known = %v, want %v", tc.id, ok, Known(tc.id), tc.wantOK)
			}
			if ok && (r.ID != tc.id || r.Source == "" || r.Link() != "docs/"+r.Source+"#"+tc.id) {
				t.Errorf("Lookup(%q) = %+v", tc.id, r)
			}
		})
	}
}

func TestLookupClause(t *testing.T) {
	c, ok := LookupClause(STAT002SetWhenKilled)
	if !ok || c.ID != STAT002SetWhenKilled || c.Requirement != STAT002 || c.Key != "set-when-killed" || c.Text == "" {
		t.Fatalf("LookupClause(%q) = %+v, %v", STAT002SetWhenKilled, c, ok)
	}
	for _, id := range []string{STAT002, STAT002 + ".nope", "", STAT002SetWhenKilled + " "} {
		if _, ok := LookupClause(id); ok {
			t.Errorf("LookupClause(%q) found a clause", id)
		}
	}
	r, _ := Lookup(STAT002)
	if ids := r.ClauseIDs(); !slices.Contains(ids, STAT002SetWhenKilled) || slices.Contains(ids, STAT002) {
		t.Errorf("%s.ClauseIDs() = %v, want its clauses", STAT002, ids)
	}
	if ids := (Requirement{ID: STOP001}).ClauseIDs(); !slices.Equal(ids, []string{STOP001}) {
		t.Errorf("a requirement without clauses: ClauseIDs() = %v, want its own ID", ids)
	}
}

func TestRequirementOf(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{STAT002SetWhenKilled, STAT002},
		{STAT002, STAT002},
		{STOP001, STOP001},
	} {
		if r, ok := RequirementOf(tc.id); !ok || r.ID != tc.want {
			t.Errorf("RequirementOf(%q) = %s, %v; want %s", tc.id, r.ID, ok, tc.want)
		}
	}
	for _, id := range []string{STAT002 + ".nope", "", "NOPE-001"} {
		if r, ok := RequirementOf(id); ok {
			t.Errorf("RequirementOf(%q) = %s, want none", id, r.ID)
		}
	}
}

func TestLabelID(t *testing.T) {
	for _, tc := range []struct {
		label, id string
		ok        bool
	}{
		{ReqLabel + STAT002, STAT002, true},
		{ClauseLabel + STAT002SetWhenKilled, STAT002SetWhenKilled, true},
		{"model", "", false},
		{"profile:core", "", false},
	} {
		if id, ok := LabelID(tc.label); id != tc.id || ok != tc.ok {
			t.Errorf("LabelID(%q) = %q, %v; want %q, %v", tc.label, id, ok, tc.id, tc.ok)
		}
	}
}

func TestAResultIsACopy(t *testing.T) {
	first := All()
	first[0].Text = "changed"
	first[0].EnforcedBy[0] = "changed"
	for i := range first {
		for j := range first[i].Clauses {
			first[i].Clauses[j].Text = "changed"
		}
	}
	r, _ := Lookup(first[0].ID)
	r.EnforcedBy[0] = "changed too"
	rules := Rules()
	rules[0].EnforcedBy[0] = "changed as well"
	second := All()
	c, _ := LookupClause(STAT002SetWhenKilled)
	if second[0].Text == "changed" || strings.HasPrefix(second[0].EnforcedBy[0], "changed") || c.Text == "changed" {
		t.Error("changing a result of All, Lookup or Rules changed the catalog")
	}
}

func TestRulesAreTheValidatorOnlyRequirements(t *testing.T) {
	rules := Rules()
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	n := 0
	for _, r := range All() {
		if r.ValidatorRule() && !r.RuntimeTested() {
			if rules[n].ID != r.ID {
				t.Fatalf("rule %d is %s, want %s", n, rules[n].ID, r.ID)
			}
			n++
		}
	}
	if n != len(rules) {
		t.Errorf("Rules() has %d entries, the registry %d validator-only requirements", len(rules), n)
	}
	for _, id := range []string{MAN010, UPD003} {
		if r, _ := Lookup(id); r.IsRule() || !r.ValidatorRule() {
			t.Errorf("%s: a runtime sentence the validator also checks is not a rule of its own", id)
		}
	}
}

func TestAnUnknownRuleIsAnError(t *testing.T) {
	if got := SeverityOf("XYZ-001"); got != Error {
		t.Errorf("SeverityOf(unknown) = %s, want error", got)
	}
}
