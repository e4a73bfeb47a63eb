package main

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/conformance/model"
	catalog "podspec.dev/podspec/spec"
)

func TestModelReachCountsMutantsByTheirJudgedRequirements(t *testing.T) {
	reg := &Registry{Mutants: []Mutant{
		{Name: "judged_by_its_second", Breaks: []string{"STOP-003", "STOP-010"}},
		{Name: "not_judged", Breaks: []string{"STOP-005"}},
		{Name: "other_area", Breaks: []string{"RST-008"}},
		{Name: "a_clause", Breaks: []string{catalog.STAT002OnlyIfKilled}},
	}}
	rows, areas := modelReach(reg, []string{"STOP-010", "RST-008", catalog.STAT002})
	if got := rows[0].judged; len(got) != 1 || got[0] != "STOP-010" {
		t.Errorf("judged of the first mutant: %v, want [STOP-010]", got)
	}
	if len(rows[1].judged) != 0 {
		t.Errorf("judged of a mutant breaking only an unjudged requirement: %v", rows[1].judged)
	}
	if got := rows[3].judged; len(got) != 1 || got[0] != catalog.STAT002OnlyIfKilled {
		t.Errorf("judged of a mutant breaking a clause of a judged requirement: %v, want [%s]", got, catalog.STAT002OnlyIfKilled)
	}
	want := []areaCount{{"STOP", 2, 1}, {"RST", 1, 1}, {"STAT", 1, 1}}
	if !slices.Equal(areas, want) {
		t.Errorf("areas %v, want %v (most unjudged first)", areas, want)
	}
	if got := modelSummary(rows); got != "3 of 4 mutants break a requirement the lifecycle model judges" {
		t.Errorf("summary %q", got)
	}
	var out bytes.Buffer
	writeModelReach(&out, rows, areas)
	for _, line := range []string{"judged judged_by_its_second", "(model: STOP-010)", "-      not_judged", "STOP  1/2"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

// The count docs/mutants.md gives is the one the registry and the model's rules table give now:
// a rule added to the model, or a mutant to the registry, changes it, and this test says to
// what (`go run ./scripts/mutantcheck model`).
func TestTheModelCountInTheDocsIsCurrent(t *testing.T) {
	reg, err := loadRegistry(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := modelReach(reg, model.Judged())
	doc, err := os.ReadFile(mutantsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if want := modelSummary(rows); !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), want) {
		t.Errorf("%s does not say %q (go run ./scripts/mutantcheck model)", mutantsDoc, want)
	}
}
