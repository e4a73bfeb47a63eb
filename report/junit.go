package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

// JUnit XML shapes (the common Jenkins/Surefire dialect CI systems read).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string          `xml:"name,attr"`
	Classname string          `xml:"classname,attr"`
	Failures  []junitFailure  `xml:"failure"`
	Skipped   *junitSkipped   `xml:"skipped"`
	SystemOut *junitSystemOut `xml:"system-out"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSystemOut struct {
	Text string `xml:",chardata"`
}

// junitWriter writes one testsuite per file and one testcase per document. Errors become
// failures (type = rule ID); warnings and suppressed findings go to system-out; a document not
// checked is a skipped testcase.
type junitWriter struct {
	w      io.Writer
	tool   Tool
	suites []junitSuite
}

func (j *junitWriter) Result(r *validator.Result) error {
	if n := len(j.suites); n == 0 || j.suites[n-1].Name != r.File {
		j.suites = append(j.suites, junitSuite{Name: r.File})
	}
	s := &j.suites[len(j.suites)-1]
	name := fmt.Sprintf("document %d", r.Document)
	if r.Kind != "" || r.Name != "" {
		name += strings.TrimRight(" "+r.Kind+" "+r.Name, " ")
	}
	c := junitCase{Name: name, Classname: r.File}
	var out strings.Builder
	for _, f := range r.Findings {
		line := fmt.Sprintf("%s: %s %s: %s", location(f.Pos), f.Severity, f.Rule, text(f))
		switch {
		case f.Suppressed:
			fmt.Fprintf(&out, "%s (suppressed: %s)\n", line, f.SuppressedReason)
		case f.Severity == finding.Error:
			c.Failures = append(c.Failures, junitFailure{Message: text(f), Type: f.Rule, Text: line})
		default:
			fmt.Fprintln(&out, line)
		}
	}
	if out.Len() > 0 {
		c.SystemOut = &junitSystemOut{Text: out.String()}
	}
	if r.Skipped != "" {
		c.Skipped = &junitSkipped{Message: r.Skipped}
		s.Skipped++
	}
	s.Tests++
	if len(c.Failures) > 0 {
		s.Failures++
	}
	s.Cases = append(s.Cases, c)
	return nil
}

func (j *junitWriter) Close(validator.Summary) error {
	doc := junitSuites{Name: j.tool.Name + " validate", Suites: j.suites}
	for _, s := range j.suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := io.WriteString(j.w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(j.w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, "\n")
	return err
}
