// Package expect reads the findings a corpus manifest (testdata/) declares it must produce: the
// expectation lines of its header, "# expect: RULE-ID LINE[:COL]". The validator's golden test
// compares them with what the pipeline reports; the traceability generator lists, per rule, the
// corpus files that expect it.
package expect

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Finding is one expected finding; Col is 0 when the line gives no column (syntax errors).
type Finding struct {
	Rule      string
	Line, Col int
}

// String renders the finding as it is written: "RULE LINE" or "RULE LINE:COL".
func (f Finding) String() string {
	if f.Col == 0 {
		return fmt.Sprintf("%s %d", f.Rule, f.Line)
	}
	return fmt.Sprintf("%s %d:%d", f.Rule, f.Line, f.Col)
}

var line = regexp.MustCompile(`^(?:#\s*)?expect:\s*([A-Z]+-[0-9]{3})\s+([0-9]+)(?::([0-9]+))?\s*$`)

// Parse reads the expectation lines of a header: the lines before the first one that is neither
// blank, a comment nor an expectation. A line of the header that mentions "expect:" but does not
// have the form above is an error.
func Parse(data []byte) ([]Finding, error) {
	var out []Finding
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		if !strings.HasPrefix(text, "#") && !strings.HasPrefix(text, "expect:") {
			break // the header ends at the first line that is not a comment
		}
		if !strings.Contains(text, "expect:") {
			continue
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("malformed expectation %q (want \"# expect: RULE-ID LINE:COL\")", text)
		}
		f := Finding{Rule: m[1]}
		f.Line, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			f.Col, _ = strconv.Atoi(m[3])
		}
		out = append(out, f)
	}
	return out, sc.Err()
}
