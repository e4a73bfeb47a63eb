package report

import (
	"encoding/json"
	"io"

	"podspec.dev/podspec/finding"
)

// jsonReport is the versioned machine report (ReportVersion).
type jsonReport struct {
	Version string    `json:"version"`
	Tool    Tool      `json:"tool"`
	Summary Summary   `json:"summary"`
	Results []*Result `json:"results"`
}

// jsonWriter collects results and writes one JSON object at Close.
type jsonWriter struct {
	w       io.Writer
	tool    Tool
	results []*Result
}

func (j *jsonWriter) Result(r *Result) error {
	c := *r
	c.Lines = nil
	if c.Findings == nil {
		c.Findings = []finding.Finding{}
	}
	j.results = append(j.results, &c)
	return nil
}

func (j *jsonWriter) Close(s Summary) error {
	rep := jsonReport{Version: ReportVersion, Tool: j.tool, Summary: s, Results: j.results}
	if rep.Results == nil {
		rep.Results = []*Result{}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
