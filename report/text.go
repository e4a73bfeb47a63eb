package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/validator"
)

// ANSI escapes used by the text format when colour is on.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
)

// textWriter prints one block per finding, compiler style:
//
//	pod.yaml:12:14: error MAN-002: spec.restartPolicy: must be one of Always, OnFailure, Never
//	   12 |   restartPolicy: Sometimes
//	      |                  ^
//
// Suppressed findings are not printed; the summary line counts them.
type textWriter struct {
	w     io.Writer
	color bool
	// skipped counts the skipped documents by kind, for the summary line.
	skipped map[string]int
}

func (t *textWriter) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

func (t *textWriter) Result(r *validator.Result) error {
	if r.Skipped != "" {
		if t.skipped == nil {
			t.skipped = map[string]int{}
		}
		t.skipped[r.Kind]++
	}
	var b strings.Builder
	for _, f := range r.Findings {
		if f.Suppressed {
			continue
		}
		sev, code := "error", ansiRed
		switch f.Severity {
		case finding.Warning:
			sev, code = "warning", ansiYellow
		case finding.Note:
			sev, code = "note", ansiCyan
		}
		fmt.Fprintf(&b, "%s: %s %s: %s\n", t.paint(ansiBold, location(f.Pos)), t.paint(code, sev),
			t.paint(ansiBold, f.Rule), text(f))
		if src, ok := r.Lines[f.Pos.Line]; ok && f.Pos.Line > 0 {
			gutter := fmt.Sprintf("%5d | ", f.Pos.Line)
			fmt.Fprintf(&b, "%s%s\n", t.paint(ansiDim, gutter), src)
			if f.Pos.Column > 0 {
				fmt.Fprintf(&b, "%s%s\n", t.paint(ansiDim, "      | "), t.paint(ansiCyan, caretPad(src, f.Pos.Column)+"^"))
			}
		}
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// caretPad is the indentation that puts a caret under the col-th character of line (tabs are
// kept so the caret lines up whatever the tab width).
func caretPad(line string, col int) string {
	var b strings.Builder
	i := 1
	for _, r := range line {
		if i >= col {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		i++
	}
	for ; i < col; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// Close prints the summary line; documents not checked are counted by kind at its end:
// "..., 0 suppressed, 3 skipped (2 Service, 1 ConfigMap: no pod)".
func (t *textWriter) Close(s validator.Summary) error {
	skipped := ""
	if s.Skipped > 0 {
		var kinds []string
		for k, n := range t.skipped {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(kinds)
		skipped = fmt.Sprintf(", %d skipped (%s: no pod)", s.Skipped, strings.Join(kinds, ", "))
	}
	notes := ""
	if s.Notes > 0 {
		notes = ", " + plural(s.Notes, "note")
	}
	_, err := fmt.Fprintf(t.w, "%s, %s: %s, %s%s, %d suppressed%s\n",
		plural(s.Files, "file"), plural(s.Documents, "document"),
		plural(s.Errors, "error"), plural(s.Warnings, "warning"), notes, s.Suppressed, skipped)
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
