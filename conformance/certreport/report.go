package certreport

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/conformance/suites"
	"podspec.dev/podspec/timeline"
)

//go:embed report.html.tmpl matrix.html.tmpl style.css
var files embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
}).ParseFS(files, "*.tmpl"))

// Verdict classes of a requirement, as the pages show them.
const (
	classPassed  = "passed"
	classFailed  = "failed"
	classNotMet  = "not-met"  // a graded SHOULD/MAY spec failed below the compliance level
	classNA      = "na"       // the profile is not declared: not applicable
	classPending = "untested" // waived (pending.yaml) or without a test
)

// verdictClass maps a coverage verdict to its class and label.
func verdictClass(v string) (class, label string) {
	switch {
	case v == suites.VerdictPassed:
		return classPassed, "passed"
	case v == suites.VerdictFailed:
		return classFailed, "failed"
	case strings.HasPrefix(v, suites.VerdictNotMet):
		return classNotMet, v
	case v == suites.VerdictSkipped:
		return classNA, "not applicable"
	}
	return classPending, v
}

// verdict is a requirement's class and label in this bundle: a spec that skipped itself, saying
// why (its row's note), could not check the requirement; a spec skipped in a narrowed run was not
// run; neither is "not applicable".
func (b *Bundle) verdict(r suites.CoverageRow) (class, label string) {
	class, label = verdictClass(r.Verdict)
	switch {
	case class == classNA && r.Note != "":
		return classPending, mdNotCheckable
	case class == classNA && !b.Env.Selection.Empty():
		return classPending, "not run (selection)"
	}
	return class, label
}

// certified reports whether the bundle is a sealed --certify run that passed.
func (b *Bundle) certified() bool { return b.Env.Certify && b.Seal == nil && b.Env.Passed }

// Counts of the four verdicts and the rest, for summaries.
type counts struct{ Passed, Failed, NotMet, NA, Untested int }

func (c *counts) add(class string) {
	switch class {
	case classPassed:
		c.Passed++
	case classFailed:
		c.Failed++
	case classNotMet:
		c.NotMet++
	case classNA:
		c.NA++
	default:
		c.Untested++
	}
}

type reportView struct {
	Title       string
	Style       template.CSS
	B           *Bundle
	Runtime     string
	Command     string
	Profiles    string
	OCIRuntime  string
	Passed      bool
	Certified   bool // a sealed --certify run that passed
	Seal        string
	Notes       []string // why the bundle is not a certification, if it is not
	Counts      counts
	Areas       []areaView
	Failures    []failureView
	Warnings    []failureView
	SuiteFailed []failureView
	Generated   string
}

type areaView struct {
	Name   string
	Counts counts
	Rows   []rowView
}

type rowView struct {
	suites.CoverageRow
	Class, Label string
}

type failureView struct {
	Spec     string
	Node     string
	Location string
	Reqs     []suites.CoverageRow
	Message  string
	Timeline template.HTML
	Events   int
}

// Render writes the HTML report of one bundle.
func Render(w io.Writer, b *Bundle) error {
	v := buildReport(b)
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "report.html.tmpl", v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// style is the pages' style sheet (each timeline picture brings its own, scoped to it).
func style() template.CSS {
	css, _ := files.ReadFile("style.css")
	return template.CSS(css) //nolint:gosec // our own embedded file
}

func buildReport(b *Bundle) *reportView {
	v := &reportView{
		Title:     "podspec conformance: " + b.RuntimeName(),
		Style:     style(),
		B:         b,
		Runtime:   b.RuntimeName(),
		Command:   strings.Join(b.Env.Runtime.Command, " "),
		Profiles:  b.Profiles(),
		Passed:    b.Env.Passed,
		Generated: time.Now().UTC().Format(time.RFC3339),
	}
	if b.Version.OCIRuntime != nil {
		data, _ := json.Marshal(b.Version.OCIRuntime)
		v.OCIRuntime = string(data)
	}
	if b.Seal == nil {
		v.Seal = "SHA256SUMS intact: every file present and unmodified"
	} else {
		v.Seal = b.Seal.Error()
		v.Notes = append(v.Notes, "seal: "+b.Seal.Error())
	}
	if !b.Env.Certify {
		v.Notes = append(v.Notes, "not a --certify run: specs may have been selected or retried")
	}
	if !b.Env.Selection.Empty() {
		v.Notes = append(v.Notes, fmt.Sprintf("selection: %s", selection(b)))
	}
	v.Certified = b.certified()
	rowsByID := map[string]suites.CoverageRow{}
	areas := areaIndex{}
	for _, r := range b.Coverage {
		rowsByID[r.ID] = r
		class, label := b.verdict(r)
		v.Counts.add(class)
		name, i, added := areas.of(r.ID)
		if added {
			v.Areas = append(v.Areas, areaView{Name: name})
		}
		area := &v.Areas[i]
		area.Counts.add(class)
		area.Rows = append(area.Rows, rowView{CoverageRow: r, Class: class, Label: label})
	}
	for _, sr := range b.Report.SpecReports {
		switch {
		case sr.State.Is(types.SpecStateFailureStates):
			f := failure(sr, rowsByID)
			if sr.LeafNodeType == types.NodeTypeIt {
				v.Failures = append(v.Failures, f)
			} else {
				v.SuiteFailed = append(v.SuiteFailed, f)
			}
		case sr.LeafNodeType == types.NodeTypeIt:
			for _, e := range sr.ReportEntries {
				if e.Name == suites.NotMetEntry {
					f := failure(sr, rowsByID)
					f.Message = e.StringRepresentation()
					v.Warnings = append(v.Warnings, f)
				}
			}
		}
	}
	return v
}

func selection(b *Bundle) string {
	s := b.Env.Selection
	var parts []string
	if s.LabelFilter != "" {
		parts = append(parts, "--label-filter "+s.LabelFilter)
	}
	for _, f := range s.Focus {
		parts = append(parts, "--focus "+f)
	}
	for _, f := range s.Skip {
		parts = append(parts, "--skip "+f)
	}
	if s.FlakeAttempts > 1 {
		parts = append(parts, fmt.Sprintf("--flake-attempts %d", s.FlakeAttempts))
	}
	return strings.Join(parts, " ")
}

// areaIndex numbers the spec areas in the order they first appear. A requirement's area is its
// ID's prefix (STOP-006: STOP).
type areaIndex map[string]int

// of returns the area of the requirement id, its number, and whether it appears first here.
func (a areaIndex) of(id string) (name string, i int, added bool) {
	name = id
	if k := strings.LastIndexByte(id, '-'); k > 0 {
		name = id[:k]
	}
	i, ok := a[name]
	if !ok {
		i = len(a)
		a[name] = i
	}
	return name, i, !ok
}

// failure describes a failed (or not met) spec: its requirements, its assertion, its timeline.
func failure(sr types.SpecReport, rows map[string]suites.CoverageRow) failureView {
	f := failureView{Spec: sr.FullText(), Message: sr.Failure.Message}
	if f.Spec == "" {
		f.Spec = sr.LeafNodeType.String()
	}
	if sr.Failure.FailureNodeType != types.NodeTypeInvalid {
		f.Node = sr.Failure.FailureNodeType.String()
	}
	if loc := sr.Failure.Location; loc.FileName != "" {
		f.Location = fmt.Sprintf("%s:%d", loc.FileName, loc.LineNumber)
	}
	for _, l := range sr.Labels() {
		if id, ok := strings.CutPrefix(l, "req:"); ok {
			row, known := rows[id]
			if !known {
				row = suites.CoverageRow{ID: id}
			}
			f.Reqs = append(f.Reqs, row)
		}
	}
	for _, e := range sr.ReportEntries {
		if e.Name != framework.TimelineEntry {
			continue
		}
		var rec framework.TimelineRecord
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &rec); err != nil || len(rec.Events) == 0 {
			continue
		}
		f.Events = len(rec.Events)
		m := timeline.Build(rec.Events, timeline.Options{Notes: notes(rec.Probe)})
		f.Timeline = template.HTML(timeline.SVG(m)) //nolint:gosec // the picture escapes every text it holds (timeline tests)
	}
	return f
}

// notes turns what the workloads reported into timeline notes: their starts, the signals they
// saw, their exits and their handlers (not their periodic checks or environment reports).
func notes(evs []probe.Event) []timeline.Note {
	var out []timeline.Note
	for i := range evs {
		p := &evs[i]
		var text string
		switch p.Type {
		case probe.TypeStart:
			text = "workload started"
			if p.Role != probe.RoleWorkload {
				continue
			}
		case probe.TypeSignal:
			text = "got " + p.Signal
			if p.Action != "" {
				text += " (" + p.Action + ")"
			}
		case probe.TypeExit:
			if p.ExitCode != nil {
				text = fmt.Sprintf("workload exits %d", *p.ExitCode)
			}
		case probe.TypeCrash:
			text = "raises " + p.Signal
		case probe.TypeHandlerStart, probe.TypeHandlerEnd:
			text = p.Handler + " handler " + strings.TrimPrefix(p.Type, "handler-")
		default:
			continue
		}
		if text == "" {
			continue
		}
		out = append(out, timeline.Note{Time: p.Received, Container: p.Container, Text: text})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}
