package main

import (
	"regexp"
	"strings"
	"testing"
)

// node is the state of one spec of the test report and, for a failure, where it failed and why.
type node struct{ state, failNode, message string }

var (
	passed  = node{state: "passed"}
	skipped = node{state: "skipped"}
)

func failedIn(where, msg string) node { return node{"failed", where, msg} }

func (n node) json() string {
	return `"State":"` + n.state + `","Failure":{"FailureNodeType":"` + n.failNode + `","Message":"` + n.message + `"}`
}

// report is a small Ginkgo JSON report: a suite node, a spec labelled HB-011 in a container
// labelled profile:core, a spec labelled STOP-008, its clause STOP-008.window and TIME-001, and the
// AfterSuite node.
func report(hb011, stop008, afterSuite node) string {
	return `[{"SpecReports":[
	  {"LeafNodeType":"BeforeSuite","LeafNodeText":"","State":"passed"},
	  {"LeafNodeType":"It","ContainerHierarchyTexts":["The stop sequence"],"LeafNodeText":"stops a dependent first","LeafNodeLabels":["req:HB-011"],"ContainerHierarchyLabels":[["profile:core"]],` + hb011.json() + `},
	  {"LeafNodeType":"It","ContainerHierarchyTexts":["The grace budget"],"LeafNodeText":"leaves the window","LeafNodeLabels":["req:STOP-008","clause:STOP-008.window","req:TIME-001"],` + stop008.json() + `},
	  {"LeafNodeType":"AfterSuite","LeafNodeText":"",` + afterSuite.json() + `}]}]`
}

func TestVerdict(t *testing.T) {
	early := failedIn("It", "SIGTERM to SIGKILL took only 5ms, want at least 2s")
	late := failedIn("It", "stop request to SIGKILL took 9s, over the budget 3s + Reaction 1s")
	tests := []struct {
		name     string
		report   string
		want     string
		reqs     []string
		match    string
		ok       bool
		contains string
	}{
		{"a mutant is caught when a spec with its requirement fails in its It", report(failedIn("It", "api had not exited"), passed, passed), "fail", []string{"HB-011"}, "", true, "caught by: The stop sequence stops a dependent first [HB-011]"},
		{"a mutant is caught by any of the requirements it breaks", report(passed, early, passed), "fail", []string{"HB-011", "TIME-001"}, "", true, "[STOP-008,STOP-008.window,TIME-001]"},
		{"a mutant of a clause is caught when a spec labelled with the clause fails in its It", report(passed, early, passed), "fail", []string{"STOP-008.window"}, "", true, "caught by"},
		{"a mutant of a clause survives when only a spec of the bare requirement fails", report(failedIn("It", "api had not exited"), passed, passed), "fail", []string{"HB-011.order"}, "", false, "survived"},
		{"a mutant is caught when the failure message matches the expected direction", report(passed, early, passed), "fail", []string{"STOP-008"}, "took only", true, "caught by"},
		{"a mutant survives when the failure message is of another kind (a loaded machine reacting late)", report(passed, late, passed), "fail", []string{"STOP-008"}, "took only", false, `with a message matching "took only"`},
		{"a mutant survives when its spec failed in the BeforeAll that runs the scenario", report(failedIn("BeforeAll", "pod not terminal within PodTimeout"), passed, passed), "fail", []string{"HB-011"}, "", false, "(failed in BeforeAll)"},
		{"a mutant survives when only a spec of another requirement fails", report(passed, early, passed), "fail", []string{"HB-011"}, "", false, "survived: no spec of req HB-011 failed in its It"},
		{"a mutant survives when every spec passes", report(passed, passed, passed), "fail", []string{"HB-011"}, "", false, "survived: all 2 specs passed"},
		{"a mutant survives when only a suite node fails", report(passed, passed, failedIn("AfterSuite", "leak")), "fail", []string{"HB-011"}, "", false, "[AfterSuite]"},
		{"a timed-out spec counts as failed", report(node{"timedout", "It", "timeout"}, passed, passed), "fail", []string{"HB-011"}, "", true, "(timedout in It)"},
		{"the normal build passes when every spec passes", report(passed, passed, passed), "pass", nil, "", true, "passed: 2 specs"},
		{"the normal build fails when a suite node fails", report(passed, passed, failedIn("AfterSuite", "leak")), "pass", nil, "", false, "failed: [AfterSuite]"},
		{"the normal build fails when nothing ran", report(skipped, skipped, passed), "pass", nil, "", false, "no spec with a requirement ran"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, err := readSpecs(strings.NewReader(tc.report))
			if err != nil {
				t.Fatal(err)
			}
			var match *regexp.Regexp
			if tc.match != "" {
				match = regexp.MustCompile(tc.match)
			}
			ok, msg := verdict(specs, tc.want, tc.reqs, match)
			if ok != tc.ok || !strings.Contains(msg, tc.contains) {
				t.Errorf("verdict = %v, %q; want %v and a message containing %q", ok, msg, tc.ok, tc.contains)
			}
		})
	}
}

func TestReadSpecsRejectsAReportWithoutSuite(t *testing.T) {
	for _, in := range []string{"[]", "{", ""} {
		if _, err := readSpecs(strings.NewReader(in)); err == nil {
			t.Errorf("readSpecs(%q) succeeded", in)
		}
	}
}
