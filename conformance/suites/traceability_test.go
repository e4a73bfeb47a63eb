package suites

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"podspec.dev/podspec/spec"
)

// TestTraceability runs the suite as a Ginkgo dry run and checks traceability both ways: every
// spec names at least one requirement, every named requirement and clause exists, every spec
// tracing only to requirements below MUST is graded, every runtime-level MUST of the registry and
// every clause of one has a spec or a pending entry with a reason, and no pending entry is stale.
//
// A dry run, rather than a scan of the source for Label("req:...") strings, sees the tree as
// Ginkgo will run it: table entries, labels inherited from containers and specs generated in
// loops all appear exactly as they will in a certification report.
func TestTraceability(t *testing.T) {
	report, err := DryRun(t)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	specs := 0
	clauseTested := map[string]bool{}
	for _, sr := range report.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		specs++
		ids := reqIDs(sr.Labels())
		if len(ids) == 0 {
			problems = append(problems, "spec without a requirement label: "+sr.FullText())
		}
		for _, id := range ids {
			if _, ok := spec.Lookup(id); !ok {
				problems = append(problems, "spec names an unknown requirement "+id+": "+sr.FullText())
			}
		}
		for _, id := range clauseIDs(sr.Labels()) {
			c, ok := spec.LookupClause(id)
			switch {
			case !ok:
				problems = append(problems, "spec names an unknown clause "+id+": "+sr.FullText())
			case !slices.Contains(ids, c.Requirement):
				problems = append(problems, "spec names the clause "+id+" but not its requirement (label it with req()): "+sr.FullText())
			default:
				clauseTested[id] = true
			}
		}
		// A spec tracing only to SHOULD/MAY requirements must be graded, or it would fail a run at
		// compliance level must.
		if _, below := belowLevel(ids, ComplianceMust); below && !hasLabel(sr.Labels(), gradedLabel) {
			problems = append(problems, "spec traces only to requirements below MUST but is not declared with gradedIt: "+sr.FullText())
		}
	}
	if specs == 0 {
		t.Fatal("the dry run reported no specs")
	}
	rows, err := Coverage(report)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := PendingRequirements()
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{}
	for _, r := range rows {
		if r.Verdict == VerdictNoTest && r.Level == spec.Must {
			problems = append(problems, "runtime-level MUST without a test or a pending entry: "+r.ID)
		}
		if len(r.Tests) > 0 {
			tested[r.ID] = true
		}
	}
	seen := map[string]bool{}
	for _, p := range pending {
		// An entry names a requirement, or a clause of one (its spec then carries clause:ID).
		q, ok := spec.RequirementOf(p.ID)
		has := tested
		if ok && q.ID != p.ID {
			has = clauseTested
		}
		switch {
		case !ok:
			problems = append(problems, "pending.yaml names an unknown requirement "+p.ID)
		case !q.RuntimeTested():
			problems = append(problems, "pending.yaml names "+p.ID+", which is not of a runtime-level requirement")
		case has[p.ID]:
			problems = append(problems, "pending.yaml still lists "+p.ID+", which now has a test labelled with it: remove the entry")
		case strings.TrimSpace(p.Reason) == "":
			problems = append(problems, "pending.yaml entry "+p.ID+" has no reason")
		case seen[p.ID]:
			problems = append(problems, "pending.yaml lists "+p.ID+" twice")
		}
		seen[p.ID] = true
	}
	// Every clause of a runtime-level MUST has a spec labelled with it or a pending entry; a
	// requirement without clauses is its own one clause, held by the check above.
	var reqs, clauses, clausesTested, clausesPending int
	for _, q := range spec.All() {
		if !q.RuntimeTested() || q.Level != spec.Must {
			continue
		}
		reqs++
		for _, id := range q.ClauseIDs() {
			clauses++
			switch {
			case clauseTested[id] || (id == q.ID && tested[id]):
				clausesTested++
			case seen[id]:
				clausesPending++
			default:
				problems = append(problems, "clause of a runtime-level MUST without a spec labelled with it or a pending entry: "+id)
			}
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d specs; %s", specs, strings.SplitN(strings.TrimPrefix(CoverageMarkdown(rows), "# Conformance coverage matrix\n\n"), "\n", 2)[0])
	t.Logf("runtime-level MUSTs: %d requirements, %d clauses, %d with a spec, %d pending", reqs, clauses, clausesTested, clausesPending)
}

func hasLabel(labels []string, want string) bool {
	for _, l := range labels {
		if l == want {
			return true
		}
	}
	return false
}

// TestReqLabelsAClauseWithItsRequirement: a clause's ID gives the spec the clause's label and its
// requirement's, once each; a requirement's ID gives its label alone.
func TestReqLabelsAClauseWithItsRequirement(t *testing.T) {
	got := req(spec.STAT002SetWhenKilled, spec.STAT002OnlyIfKilled, spec.STAT003)
	want := []string{"req:" + spec.STAT002, ClauseLabel + spec.STAT002SetWhenKilled, ClauseLabel + spec.STAT002OnlyIfKilled, "req:" + spec.STAT003}
	if !slices.Equal([]string(got), want) {
		t.Errorf("req() = %v, want %v", got, want)
	}
	if ids := clauseIDs(got); !slices.Equal(ids, []string{spec.STAT002SetWhenKilled, spec.STAT002OnlyIfKilled}) {
		t.Errorf("clauseIDs() = %v", ids)
	}
}
