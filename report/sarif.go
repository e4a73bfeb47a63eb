package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

// SARIF 2.1.0 shapes: only what podspec emits.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations,omitempty"`
	Results     []sarifResult     `json:"results"`
}

// sarifInvocation carries the documents not checked, as notes (toolExecutionNotifications).
type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID       string             `json:"ruleId"`
	RuleIndex    *int               `json:"ruleIndex,omitempty"`
	Level        string             `json:"level"`
	Message      sarifMessage       `json:"message"`
	Locations    []sarifLocation    `json:"locations"`
	Suppressions []sarifSuppression `json:"suppressions,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// sarifSchema is the published location of the SARIF 2.1.0 JSON Schema (a name, never fetched).
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// sarifWriter collects results and writes one SARIF log at Close. The results array is always
// present; a region is given only for known positions (never a made-up 1:1); suppressed
// findings carry an inSource suppression with the annotation's reason; documents not checked
// are note-level toolExecutionNotifications of the run's invocation.
type sarifWriter struct {
	w       io.Writer
	driver  sarifDriver
	index   map[string]int
	results []sarifResult
	skipped []sarifNotification
	cwd     string
}

func newSARIFWriter(w io.Writer, o Options) *sarifWriter {
	s := &sarifWriter{w: w, index: map[string]int{}}
	s.driver = sarifDriver{Name: o.Tool.Name, Version: o.Tool.Version, InformationURI: o.Tool.InformationURI, Rules: []sarifRule{}}
	for _, r := range o.Rules {
		s.index[r.ID] = len(s.driver.Rules)
		s.driver.Rules = append(s.driver.Rules, sarifRule{
			ID: r.ID, ShortDescription: sarifMessage{Text: r.Text},
			DefaultConfiguration: sarifConfig{Level: level(r.Severity)},
		})
	}
	s.cwd, _ = os.Getwd()
	return s
}

func level(s finding.Severity) string {
	switch s {
	case finding.Warning:
		return "warning"
	case finding.Note:
		return "note"
	}
	return "error"
}

// uri turns a file name into a relative URI reference where it can (relative to the working
// directory, which is what code-scanning upload resolves against).
func (s *sarifWriter) uri(file string) string {
	p := file
	if filepath.IsAbs(p) && s.cwd != "" {
		if rel, err := filepath.Rel(s.cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		}
	}
	u := url.URL{Path: filepath.ToSlash(p)}
	if filepath.IsAbs(p) {
		u.Scheme = "file"
	}
	return u.String()
}

func (s *sarifWriter) Result(r *validator.Result) error {
	if r.Skipped != "" {
		s.skipped = append(s.skipped, sarifNotification{Level: "note",
			Message:   sarifMessage{Text: fmt.Sprintf("document %d skipped: %s", r.Document, r.Skipped)},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: s.uri(r.File)}}}}})
	}
	for _, f := range r.Findings {
		res := sarifResult{
			RuleID:  f.Rule,
			Level:   level(f.Severity),
			Message: sarifMessage{Text: text(f)},
		}
		if i, ok := s.index[f.Rule]; ok {
			res.RuleIndex = &i
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: s.uri(f.Pos.File)}}
		if f.Pos.Line > 0 {
			loc.Region = &sarifRegion{StartLine: f.Pos.Line, StartColumn: f.Pos.Column}
		}
		res.Locations = []sarifLocation{{PhysicalLocation: loc}}
		if f.Suppressed {
			res.Suppressions = []sarifSuppression{{Kind: "inSource", Justification: f.SuppressedReason}}
		}
		s.results = append(s.results, res)
	}
	return nil
}

func (s *sarifWriter) Close(validator.Summary) error {
	results := s.results
	if results == nil {
		results = []sarifResult{}
	}
	run := sarifRun{Tool: sarifTool{Driver: s.driver}, Results: results}
	if len(s.skipped) > 0 {
		run.Invocations = []sarifInvocation{{ExecutionSuccessful: true, Notifications: s.skipped}}
	}
	log := sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
