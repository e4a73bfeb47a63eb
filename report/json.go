package report

import (
	"encoding/json"
	"io"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

// jsonReport is the versioned machine report (ReportVersion).
type jsonReport struct {
	Version string              `json:"version"`
	Tool    Tool                `json:"tool"`
	Summary validator.Summary   `json:"summary"`
	Results []*validator.Result `json:"results"`
}

// jsonWriter collects results and writes one JSON object at Close.
type jsonWriter struct {
	w       io.Writer
	tool    Tool
	results []*validator.Result
}

func (j *jsonWriter) Result(r *validator.Result) error {
	c := *r
	c.Lines = nil
	if c.Findings == nil {
		c.Findings = []finding.Finding{}
	}
	j.results = append(j.results, &c)
	return nil
}

func (j *jsonWriter) Close(s validator.Summary) error {
	rep := jsonReport{Version: ReportVersion, Tool: j.tool, Summary: s, Results: j.results}
	if rep.Results == nil {
		rep.Results = []*validator.Result{}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
