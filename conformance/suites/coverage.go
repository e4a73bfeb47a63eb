package suites

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	"github.com/onsi/ginkgo/v2/types"
	"go.yaml.in/yaml/v3"

	"podspec.dev/podspec/spec"
)

// pendingYAML lists the runtime-level requirements the suite does not test yet, each with the
// reason: a typed waiver list, reported separately and never counted as covered.
//
//go:embed pending.yaml
var pendingYAML []byte

// Waiver is one requirement the suite knowingly does not test yet.
type Waiver struct {
	ID     string `yaml:"id" json:"id"`
	Reason string `yaml:"reason" json:"reason"`
}

// PendingRequirements returns the waiver list.
func PendingRequirements() ([]Waiver, error) {
	var doc struct {
		Waiver []Waiver `yaml:"pending"`
	}
	if err := yaml.Unmarshal(pendingYAML, &doc); err != nil {
		return nil, fmt.Errorf("parse pending.yaml: %w", err)
	}
	return doc.Waiver, nil
}

// Verdicts of a requirement in the coverage matrix.
const (
	VerdictPassed  = "passed"
	VerdictFailed  = "failed"
	VerdictSkipped = "skipped"
	VerdictPending = "pending" // in the waiver list: no test yet
	VerdictNoTest  = "no test" // neither tested nor waived: the traceability gate fails
	// VerdictNotMet is "not met (SHOULD)" (or MAY): a graded spec failed below the run's compliance
	// level; a warning, the run still passes. The row's note holds the failure.
	VerdictNotMet = "not met"
)

// CoverageRow is one requirement of the matrix.
type CoverageRow struct {
	ID      string   `json:"id"`
	Level   string   `json:"level"`
	Profile string   `json:"profile"`
	Text    string   `json:"text"`
	Tests   []string `json:"tests"`
	Verdict string   `json:"verdict"`
	Note    string   `json:"note,omitempty"`
}

// Coverage computes the matrix (runtime-tested requirements → specs → verdict) from a report.
func Coverage(r types.Report) ([]CoverageRow, error) {
	reqs := spec.All()
	pending, err := PendingRequirements()
	if err != nil {
		return nil, err
	}
	waived := map[string]string{}
	for _, p := range pending {
		waived[p.ID] = p.Reason
	}
	type result struct {
		names  []string
		states []types.SpecState
		notMet []string // failures recorded by graded specs (NotMetEntry)
		skips  []string // why specs skipped themselves (Skip's message), each once
	}
	byID := map[string]*result{}
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		for _, id := range reqIDs(sr.Labels()) {
			res := byID[id]
			if res == nil {
				res = &result{}
				byID[id] = res
			}
			res.names = append(res.names, sr.FullText())
			res.states = append(res.states, sr.State)
			for _, e := range sr.ReportEntries {
				if e.Name == NotMetEntry {
					res.notMet = append(res.notMet, e.StringRepresentation())
				}
			}
			if msg := selfSkip(sr); msg != "" && !slices.Contains(res.skips, msg) {
				res.skips = append(res.skips, msg)
			}
		}
	}
	var rows []CoverageRow
	for _, q := range reqs {
		if !q.RuntimeTested() {
			continue
		}
		row := CoverageRow{ID: q.ID, Level: q.Level, Profile: q.Profile, Text: q.Text}
		res := byID[q.ID]
		switch {
		case res == nil && waived[q.ID] != "":
			row.Verdict, row.Note = VerdictPending, waived[q.ID]
		case res == nil:
			row.Verdict = VerdictNoTest
		default:
			row.Tests = res.names
			row.Verdict = verdict(res.states)
			switch {
			case row.Verdict == VerdictPassed && len(res.notMet) > 0:
				row.Verdict = fmt.Sprintf("%s (%s)", VerdictNotMet, q.Level)
				row.Note = strings.Join(res.notMet, "; ")
			case row.Verdict == VerdictSkipped:
				// A contract-gated spec (SEC-007 on a 1.1 runtime) says why it could not check.
				row.Note = strings.Join(res.skips, "; ")
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// selfSkip is the reason a skipped spec gave for skipping itself ("not checkable: …"), or "" for
// a spec that passed, failed, was filtered out, or did not run because its ordered scenario
// failed first (Ginkgo's own messages).
func selfSkip(sr types.SpecReport) string {
	msg := strings.TrimSpace(sr.Failure.Message)
	if sr.State != types.SpecStateSkipped || strings.HasPrefix(msg, "Spec skipped because an earlier spec") ||
		strings.HasPrefix(msg, "Spec skipped because a BeforeAll node failed") {
		return ""
	}
	return msg
}

func verdict(states []types.SpecState) string {
	passed, skipped := 0, 0
	for _, st := range states {
		switch {
		case st.Is(types.SpecStateFailureStates):
			return VerdictFailed
		case st == types.SpecStatePassed:
			passed++
		default:
			skipped++
		}
	}
	if passed > 0 {
		return VerdictPassed
	}
	return VerdictSkipped
}

// CoverageMarkdown renders the matrix with a summary line.
func CoverageMarkdown(rows []CoverageRow) string {
	count := map[string]int{}
	for _, r := range rows {
		count[r.Verdict]++
	}
	var keys []string
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Conformance coverage matrix\n\n")
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, count[k]))
	}
	fmt.Fprintf(&b, "%d runtime-level requirements — %s\n\n", len(rows), strings.Join(parts, ", "))
	b.WriteString("| requirement | level | profile | verdict | tests / note |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		detail := strings.Join(r.Tests, "<br>")
		switch {
		case strings.HasPrefix(r.Verdict, VerdictNotMet), r.Verdict == VerdictSkipped && r.Note != "":
			detail += "<br>" + strings.Join(strings.Fields(r.Note), " ")
		case r.Note != "":
			detail = r.Note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.ID, r.Level, r.Profile, r.Verdict, strings.ReplaceAll(detail, "|", "\\|"))
	}
	return b.String()
}

// reportCoverage is the ReportAfterSuite node: it writes the matrix where asked and prints the
// summary.
func (s *suite) reportCoverage(r Report) {
	rows, err := Coverage(r)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "coverage matrix: %v\n", err)
		return
	}
	md := CoverageMarkdown(rows)
	if s.opts.CoverageFile != "" {
		if err := os.WriteFile(s.opts.CoverageFile, []byte(md), 0o644); err != nil {
			fmt.Fprintf(s.opts.Log, "write coverage matrix: %v\n", err)
		}
	}
	if s.opts.CoverageJSON != "" {
		data, err := json.MarshalIndent(rows, "", "  ")
		if err == nil {
			err = os.WriteFile(s.opts.CoverageJSON, data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(s.opts.Log, "write coverage JSON: %v\n", err)
		}
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(md, "# Conformance coverage matrix\n\n"), "\n")
	fmt.Fprintf(s.opts.Log, "coverage: %s\n", first)
	for _, w := range Warnings(rows) {
		fmt.Fprintf(s.opts.Log, "warning: %s\n", w)
	}
}

// Warnings lists the requirements a run did not meet without failing (verdict not met), one line
// each with the failure.
func Warnings(rows []CoverageRow) []string {
	var out []string
	for _, r := range rows {
		if strings.HasPrefix(r.Verdict, VerdictNotMet) {
			out = append(out, fmt.Sprintf("%s %s: %s", r.ID, r.Verdict, r.Note))
		}
	}
	return out
}
