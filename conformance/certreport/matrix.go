package certreport

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
)

type matrixView struct {
	Style template.CSS
	Cols  []matrixCol
	Rows  []matrixRow
	Areas []matrixArea
	Span  int
}

type matrixCol struct {
	Runtime           string
	Contract          string
	Profiles          string
	When, Host        string
	Passed, Certified bool
	Filtered          bool // not a certification run: specs selected or retried
	Counts            counts
}

type matrixArea struct {
	Name string
	Rows []matrixRow
}

type matrixRow struct {
	ID, Level, Text string
	Cells           []matrixCell
}

type matrixCell struct{ Class, Label, Short string }

// shortLabel is a cell's text: the matrix is wide.
var shortLabel = map[string]string{classPassed: "pass", classFailed: "FAIL", classNotMet: "not met", classNA: "n/a", classPending: "—"}

// RenderMatrix writes one page comparing bundles: a column per bundle (runtime), a row per
// runtime-level requirement of any of them (in the first bundle's order, then the others'),
// each cell the requirement's verdict in that bundle ("—" when the bundle does not list it).
func RenderMatrix(w io.Writer, bundles []*Bundle) error {
	if len(bundles) == 0 {
		return fmt.Errorf("no bundles")
	}
	v := &matrixView{Style: style(), Span: 2 + len(bundles)}
	index := map[string]int{}
	for bi, b := range bundles {
		col := matrixCol{
			Runtime:   b.RuntimeName(),
			Contract:  b.Version.ContractVersion,
			Profiles:  b.Profiles(),
			When:      b.Env.StartedAt.UTC().Format("2006-01-02"),
			Host:      strings.TrimSpace(b.Env.Host.OS + " " + b.Env.Host.Arch),
			Passed:    b.Env.Passed,
			Certified: b.certified(),
			Filtered:  !b.Env.Certify || !b.Env.Selection.Empty(),
		}
		for _, r := range b.Coverage {
			i, ok := index[r.ID]
			if !ok {
				i = len(v.Rows)
				index[r.ID] = i
				v.Rows = append(v.Rows, matrixRow{ID: r.ID, Level: r.Level, Text: r.Text, Cells: make([]matrixCell, len(bundles))})
			}
			class, label := b.verdict(r)
			col.Counts.add(class)
			v.Rows[i].Cells[bi] = matrixCell{Class: class, Label: label, Short: shortLabel[class]}
		}
		v.Cols = append(v.Cols, col)
	}
	areas := areaIndex{}
	for _, r := range v.Rows {
		name, i, added := areas.of(r.ID)
		if added {
			v.Areas = append(v.Areas, matrixArea{Name: name})
		}
		v.Areas[i].Rows = append(v.Areas[i].Rows, r)
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, "matrix.html.tmpl", v); err != nil {
		return fmt.Errorf("render matrix: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
