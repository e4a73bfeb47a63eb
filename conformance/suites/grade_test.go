package suites

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"podspec.dev/podspec/spec"
)

// registryIDs returns one runtime-tested requirement ID of each level, from the registry.
func registryIDs(t *testing.T) map[string]string {
	t.Helper()
	reqs := spec.All()
	out := map[string]string{}
	for _, r := range reqs {
		if r.RuntimeTested() && out[r.Level] == "" {
			out[r.Level] = r.ID
		}
	}
	for _, l := range []string{spec.Must, spec.Should} {
		if out[l] == "" {
			t.Fatalf("the registry has no runtime-tested %s requirement", l)
		}
	}
	return out
}

func TestBelowLevel(t *testing.T) {
	ids := registryIDs(t)
	must, should := ids[spec.Must], ids[spec.Should]
	for _, tc := range []struct {
		name      string
		ids       []string
		level     string
		wantLevel string
		wantBelow bool
	}{
		{"a SHOULD-only spec under must is not met, a warning", []string{should}, ComplianceMust, spec.Should, true},
		{"a SHOULD-only spec under should fails", []string{should}, ComplianceShould, spec.Should, false},
		{"a spec tracing to a MUST and a SHOULD fails under must", []string{should, must}, ComplianceMust, spec.Must, false},
		{"a MUST spec fails under must", []string{must}, ComplianceMust, spec.Must, false},
		{"a spec naming an unknown requirement fails", []string{should, "NOPE-999"}, ComplianceMust, "", false},
		{"a spec naming no requirement fails", nil, ComplianceMust, "", false},
		{"an unknown compliance level grades nothing", []string{should}, "may", "", false},
	} {
		level, below := belowLevel(tc.ids, tc.level)
		if level != tc.wantLevel || below != tc.wantBelow {
			t.Errorf("%s: belowLevel(%v, %q) = %q, %v; want %q, %v", tc.name, tc.ids, tc.level, level, below, tc.wantLevel, tc.wantBelow)
		}
	}
	if !ValidComplianceLevel(ComplianceMust) || !ValidComplianceLevel(ComplianceShould) || ValidComplianceLevel("may") {
		t.Error("ValidComplianceLevel accepts exactly must and should")
	}
}

func TestCoverageNotMet(t *testing.T) {
	ids := registryIDs(t)
	must, should := ids[spec.Must], ids[spec.Should]
	spec := func(text string, state types.SpecState, entry string, reqs ...string) types.SpecReport {
		sr := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, LeafNodeLabels: req(reqs...), State: state}
		if entry != "" {
			sr.ReportEntries = types.ReportEntries{{Name: NotMetEntry, Value: types.WrapEntryValue(entry)}}
		}
		return sr
	}
	verdicts := func(r types.Report) map[string]CoverageRow {
		rows, err := Coverage(r)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]CoverageRow{}
		for _, row := range rows {
			out[row.ID] = row
		}
		return out
	}

	// A graded spec that failed below the level passed for Ginkgo and recorded the failure.
	rows := verdicts(types.Report{SpecReports: types.SpecReports{
		spec("graded", types.SpecStatePassed, "pods taken in name order", should),
		spec("plain", types.SpecStatePassed, "", must),
	}})
	if got := rows[should]; got.Verdict != "not met (SHOULD)" || !strings.Contains(got.Note, "pods taken in name order") {
		t.Errorf("graded failure: verdict %q note %q, want not met (SHOULD) with the failure", got.Verdict, got.Note)
	}
	if got := rows[must].Verdict; got != VerdictPassed {
		t.Errorf("MUST spec: verdict %q, want passed", got)
	}
	if w := Warnings(mapRows(rows)); len(w) != 1 || !strings.HasPrefix(w[0], should+" not met (SHOULD)") {
		t.Errorf("warnings %q, want one for %s", w, should)
	}
	md := CoverageMarkdown(mapRows(rows))
	if !strings.Contains(md, "| not met (SHOULD) |") || !strings.Contains(md, "pods taken in name order") {
		t.Errorf("the Markdown matrix does not show the not-met verdict with its failure:\n%s", md)
	}

	// A failed spec (a MUST among its requirements, or level should) fails every requirement it
	// traces to, whatever entries it recorded.
	rows = verdicts(types.Report{SpecReports: types.SpecReports{
		spec("mixed", types.SpecStateFailed, "", should, must),
	}})
	if rows[should].Verdict != VerdictFailed || rows[must].Verdict != VerdictFailed {
		t.Errorf("failed spec: verdicts %q / %q, want failed", rows[should].Verdict, rows[must].Verdict)
	}
	if w := Warnings(mapRows(rows)); len(w) != 0 {
		t.Errorf("a failed run lists warnings %q", w)
	}

	// A spec that skipped itself says why, in the row and the Markdown, once per reason; a spec
	// the filter left out (no message) adds nothing.
	skipped := func(text, msg string) types.SpecReport {
		sr := spec(text, types.SpecStateSkipped, "", must)
		sr.Failure.Message = msg
		return sr
	}
	rows = verdicts(types.Report{SpecReports: types.SpecReports{
		skipped("gated", "not checkable: contract 1.1"),
		skipped("gated again", "not checkable: contract 1.1"),
		skipped("filtered", ""),
		skipped("after a failure", "Spec skipped because an earlier spec in an ordered container failed"),
	}})
	if got := rows[must]; got.Verdict != VerdictSkipped || got.Note != "not checkable: contract 1.1" {
		t.Errorf("self-skipped spec: verdict %q note %q, want skipped with its reason once", got.Verdict, got.Note)
	}
	if md := CoverageMarkdown(mapRows(rows)); !strings.Contains(md, "| skipped | gated<br>gated again<br>filtered<br>after a failure<br>not checkable: contract 1.1 |") {
		t.Errorf("the Markdown matrix does not show the skip's reason after the tests:\n%s", md)
	}
}

func mapRows(m map[string]CoverageRow) []CoverageRow {
	var out []CoverageRow
	for _, r := range m {
		out = append(out, r)
	}
	return out
}
