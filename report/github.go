package report

import (
	"fmt"
	"io"
	"strings"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

// githubWriter prints GitHub Actions workflow commands, one per unsuppressed finding:
//
//	::error file=pod.yaml,line=12,col=14,title=MAN-002::spec.restartPolicy: ...
type githubWriter struct{ w io.Writer }

func (g *githubWriter) Result(r *validator.Result) error {
	var b strings.Builder
	if r.Skipped != "" {
		fmt.Fprintf(&b, "::notice file=%s,title=skipped::document %d: %s\n", escapeProperty(r.File), r.Document, escapeData(r.Skipped))
	}
	for _, f := range r.Findings {
		if f.Suppressed {
			continue
		}
		cmd := "error"
		switch f.Severity {
		case finding.Warning:
			cmd = "warning"
		case finding.Note:
			cmd = "notice"
		}
		fmt.Fprintf(&b, "::%s file=%s", cmd, escapeProperty(f.Pos.File))
		if f.Pos.Line > 0 {
			fmt.Fprintf(&b, ",line=%d", f.Pos.Line)
			if f.Pos.Column > 0 {
				fmt.Fprintf(&b, ",col=%d", f.Pos.Column)
			}
		}
		fmt.Fprintf(&b, ",title=%s::%s\n", escapeProperty(f.Rule), escapeData(text(f)))
	}
	_, err := io.WriteString(g.w, b.String())
	return err
}

func (g *githubWriter) Close(validator.Summary) error { return nil }

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
