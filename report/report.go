// Package report renders the validator's results (validator.Result, validator.Summary) in the
// formats podspec validate offers: text (with a source excerpt and caret), a versioned JSON
// report, JUnit XML, SARIF 2.1.0 and GitHub workflow annotations. It only renders: it never decides what is a finding, never reads
// manifests and never exits.
//
// Every format is a Writer fed results in source order and closed with the run's summary, so
// streaming formats (text, github) hold nothing and the others hold only findings.
package report

import (
	"fmt"
	"io"
	"strings"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validator"
)

// ReportVersion names the JSON report format; it changes only with incompatible changes.
const ReportVersion = "podspec.dev/validate-report/v1"

// Tool identifies the program in machine-readable reports.
type Tool struct {
	Name           string `json:"name"`
	Version        string `json:"version"`
	InformationURI string `json:"informationUri,omitempty"`
}

// Options configure a Writer.
type Options struct {
	// Color enables ANSI colour in the text format.
	Color bool
	// Tool names the program and its version.
	Tool Tool
	// Rules lists every rule, for formats that describe rules (SARIF): spec.Rules().
	Rules []spec.Requirement
}

// Writer renders one format. Result is called once per document in source order; Close
// writes whatever the format needs at the end (the summary, or the whole document).
type Writer interface {
	Result(r *validator.Result) error
	Close(s validator.Summary) error
}

// Formats lists the format names New accepts.
func Formats() []string { return []string{"text", "json", "junit", "sarif", "github"} }

// New returns the writer for a format.
func New(format string, w io.Writer, o Options) (Writer, error) {
	switch format {
	case "text", "":
		return &textWriter{w: w, color: o.Color}, nil
	case "json":
		return &jsonWriter{w: w, tool: o.Tool}, nil
	case "junit":
		return &junitWriter{w: w, tool: o.Tool}, nil
	case "sarif":
		return newSARIFWriter(w, o), nil
	case "github":
		return &githubWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats(), ", "))
}

// location renders file:line:col, omitting what is unknown.
func location(p finding.Position) string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// text is the one-line message of a finding: its field path, then its message.
func text(f finding.Finding) string {
	if f.Path != "" && !strings.HasPrefix(f.Message, f.Path) {
		return f.Path + ": " + f.Message
	}
	return f.Message
}
