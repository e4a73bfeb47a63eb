package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"podspec.dev/podspec/conformance/model"
	catalog "podspec.dev/podspec/spec"
)

// modelRow is one mutant as the lifecycle model sees it: the requirements it breaks that the
// model judges (none: the model alone cannot catch it, whatever the history).
type modelRow struct {
	mutant Mutant
	judged []string
}

// areaCount is, for one area, how many mutants there are and how many the model judges.
type areaCount struct {
	area          string
	total, judged int
}

// modelReach lists, per mutant of the registry, the broken requirements the model judges
// (judged: model.Judged()), and per area (the area of the mutant's first broken requirement)
// the counts, areas in order of their mutants the model does not judge, most first.
func modelReach(reg *Registry, judged []string) ([]modelRow, []areaCount) {
	rows := make([]modelRow, 0, len(reg.Mutants))
	byArea := map[string]*areaCount{}
	for _, m := range reg.Mutants {
		row := modelRow{mutant: m}
		for _, id := range m.Breaks {
			// The model judges requirements, so a clause's judge is its requirement's.
			if r, ok := catalog.RequirementOf(id); ok && slices.Contains(judged, r.ID) {
				row.judged = append(row.judged, id)
			}
		}
		rows = append(rows, row)
		area, _, _ := strings.Cut(m.Breaks[0], "-")
		a := byArea[area]
		if a == nil {
			a = &areaCount{area: area}
			byArea[area] = a
		}
		a.total++
		if len(row.judged) > 0 {
			a.judged++
		}
	}
	areas := make([]areaCount, 0, len(byArea))
	for _, a := range byArea {
		areas = append(areas, *a)
	}
	slices.SortFunc(areas, func(x, y areaCount) int {
		if d := (y.total - y.judged) - (x.total - x.judged); d != 0 {
			return d
		}
		return strings.Compare(x.area, y.area)
	})
	return rows, areas
}

// modelSummary is the sentence docs/mutants.md carries (TestTheModelCountInTheDocsIsCurrent).
func modelSummary(rows []modelRow) string {
	n := 0
	for _, r := range rows {
		if len(r.judged) > 0 {
			n++
		}
	}
	return fmt.Sprintf("%d of %d mutants break a requirement the lifecycle model judges", n, len(rows))
}

// writeModelReach prints one line per mutant ("judged" or "-", its name, what it breaks and,
// when judged, which of those the model judges), then the per-area counts and the summary.
func writeModelReach(w io.Writer, rows []modelRow, areas []areaCount) {
	for _, r := range rows {
		mark, which := "-     ", ""
		if len(r.judged) > 0 {
			mark, which = "judged", " (model: "+strings.Join(r.judged, ",")+")"
		}
		fmt.Fprintf(w, "%s %-40s %s%s\n", mark, r.mutant.Name, strings.Join(r.mutant.Breaks, ","), which)
	}
	fmt.Fprintln(w, "\narea  judged/mutants (by each mutant's first broken requirement)")
	for _, a := range areas {
		fmt.Fprintf(w, "%-5s %d/%d\n", a.area, a.judged, a.total)
	}
	fmt.Fprintln(w, "\n"+modelSummary(rows))
}

// modelCommand runs `model [-registry FILE]` and returns the exit status.
func modelCommand(args []string) int {
	fs := flag.NewFlagSet("model", flag.ContinueOnError)
	path := fs.String("registry", patchDir+"/mutants.yaml", "the mutant registry")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mutantcheck model [-registry FILE]")
		return 2
	}
	reg, err := loadRegistry(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutantcheck:", err)
		return 2
	}
	rows, areas := modelReach(reg, model.Judged())
	writeModelReach(os.Stdout, rows, areas)
	return 0
}
