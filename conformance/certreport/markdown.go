package certreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/certify"
	"podspec.dev/podspec/conformance/suites"
)

// Triage is the hand-kept part of a certification page (docs/certification/triage/NAME.yaml):
// what the page is called, how the run was made, and the one-line reason of each requirement
// the run did not pass. Reasons are judgment, so they live in one file per runtime; everything
// else on the page comes from the bundle.
type Triage struct {
	// Title names what was certified: "Reference runtime on crun 1.8.1".
	Title string `yaml:"title"`
	// Command is the command that made the bundle, from the repository root.
	Command string `yaml:"command"`
	// Facts are extra rows of the page's table (a component's version the bundle does not
	// name), in order.
	Facts []Fact `yaml:"facts,omitempty"`
	// Reasons maps a requirement ID to why it failed (or was not met, or was not run).
	Reasons map[string]string `yaml:"reasons"`
	// Notes is Markdown shown after the table of requirements not passed.
	Notes string `yaml:"notes,omitempty"`
}

// Fact is one extra row of a page's table.
type Fact struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// LoadTriage reads a triage file; unknown fields are an error.
func LoadTriage(path string) (*Triage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Triage
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if strings.TrimSpace(t.Title) == "" || strings.TrimSpace(t.Command) == "" {
		return nil, fmt.Errorf("%s: title and command are required", path)
	}
	for id, r := range t.Reasons {
		if strings.TrimSpace(r) == "" {
			return nil, fmt.Errorf("%s: the reason of %s is empty", path, id)
		}
		if strings.ContainsAny(strings.TrimSpace(r), "\n") {
			return nil, fmt.Errorf("%s: the reason of %s is more than one line", path, id)
		}
	}
	return &t, nil
}

// Verdict labels of a certification page.
const (
	mdPassed      = "passed"
	mdFailed      = "failed"
	mdNotRun      = "not run"      // a spec of a declared profile that did not run (its ordered scenario failed first)
	mdNotDeclared = "not declared" // a spec of an optional profile the runtime does not declare
	mdPending     = "pending"      // waived: no black-box spec can check it
	// mdNotCheckable is a spec of a declared profile that skipped itself, saying why (SEC-007's
	// spec on a runtime whose contract does not name its state directories).
	mdNotCheckable = "not checkable"
)

// mdVerdict is a requirement's label on a page, and whether it needs a reason.
func (b *Bundle) mdVerdict(r suites.CoverageRow) (label string, needsReason bool) {
	switch {
	case r.Verdict == suites.VerdictPassed:
		return mdPassed, false
	case r.Verdict == suites.VerdictFailed:
		return mdFailed, true
	case strings.HasPrefix(r.Verdict, suites.VerdictNotMet):
		return r.Verdict, true
	case r.Verdict == suites.VerdictSkipped:
		switch {
		case !b.Version.Has(runtimev1.Profile(r.Profile)):
			return mdNotDeclared, false
		case r.Note != "":
			return mdNotCheckable, false
		}
		return mdNotRun, false
	case r.Verdict == suites.VerdictPending:
		return mdPending, false
	}
	return r.Verdict, true // "no test": the suite's traceability gate should have failed
}

// CheckTriage holds a triage file to a bundle: every requirement that failed (or was not met)
// has a reason, and every reason names a requirement that failed, was not met, or was not run.
func CheckTriage(b *Bundle, t *Triage) error {
	var errs []string
	seen := map[string]bool{}
	for _, r := range b.Coverage {
		seen[r.ID] = true
		label, needs := b.mdVerdict(r)
		_, has := t.Reasons[r.ID]
		switch {
		case needs && !has:
			errs = append(errs, fmt.Sprintf("%s %s and has no reason", r.ID, label))
		case !needs && has && label != mdNotRun:
			errs = append(errs, fmt.Sprintf("%s has a reason but %s", r.ID, label))
		}
	}
	for id := range t.Reasons {
		if !seen[id] {
			errs = append(errs, fmt.Sprintf("%s has a reason but is not a requirement of the bundle", id))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("triage does not fit the bundle %s:\n  %s", b.Dir, strings.Join(errs, "\n  "))
	}
	return nil
}

// SealDigest is the SHA-256 of the bundle's SHA256SUMS, hex.
func (b *Bundle) SealDigest() (string, error) {
	data, err := os.ReadFile(filepath.Join(b.Dir, certify.SumsFile))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// RenderMarkdown writes a certification page (docs/certification/NAME.md) for a sealed
// certification bundle and its triage: versions, the command, the verdict of every
// runtime-level requirement, the reason of each that did not pass, and the bundle's digest. It
// refuses a bundle that is not a sealed --certify run and a triage that does not fit the
// bundle (CheckTriage). bundleName is how the page names the bundle's location.
func RenderMarkdown(w io.Writer, b *Bundle, t *Triage, bundleName string) error {
	if !b.Env.Certify {
		return fmt.Errorf("%s is not a certification run (--certify)", b.Dir)
	}
	if b.Seal != nil {
		return fmt.Errorf("%s: %w", b.Dir, b.Seal)
	}
	if err := CheckTriage(b, t); err != nil {
		return err
	}
	digest, err := b.SealDigest()
	if err != nil {
		return err
	}
	var p strings.Builder
	fmt.Fprintf(&p, "# Certification: %s\n\n", t.Title)
	fmt.Fprintf(&p, "Generated by `podspec conformance report --markdown` from the sealed bundle `%s` of a `--certify` run (`podspec conformance verify` checks it) and the reasons in the triage file. Bundle digest: SHA-256 of its `SHA256SUMS` = `%s`.\n\n", bundleName, digest)

	env := b.Env
	rows := [][2]string{
		{"runtime", strings.TrimSpace(b.Version.Runtime.Name + " " + b.Version.Runtime.Version)},
	}
	if oci := b.Version.OCIRuntime; oci != nil && (oci.Name != "" || oci.Path != "") {
		v := strings.TrimSpace(oci.Name + " " + oci.Version)
		if oci.Path != "" {
			v += " (`" + oci.Path + "`)"
		}
		rows = append(rows, [2]string{"OCI runtime", v})
	}
	for _, f := range t.Facts {
		rows = append(rows, [2]string{f.Name, f.Value})
	}
	bin := env.Suite.BinarySHA256
	if len(bin) > 16 {
		bin = bin[:16] + "…"
	}
	rows = append(rows,
		[2]string{"declared profiles", b.Profiles()},
		[2]string{"contract / spec", env.Suite.ContractVersion + " / " + env.Suite.SpecVersion},
		[2]string{"suite binary", fmt.Sprintf("sha256 `%s`, %d specs", bin, env.Suite.SpecCount)},
		[2]string{"host", fmt.Sprintf("%s, kernel %s, %d CPUs", env.Host.OS, env.Host.Kernel, env.Host.CPUs)},
		[2]string{"run", fmt.Sprintf("%s → %s (%.0f s), slow factor %g, compliance level %s",
			env.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), env.FinishedAt.UTC().Format("2006-01-02T15:04:05Z"),
			env.WallSeconds, env.SlowFactor, env.ComplianceLevel)},
		[2]string{"runtime command (recorded)", "`" + strings.Join(env.Runtime.Command, " ") + "`"},
	)
	p.WriteString("| | |\n|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&p, "| %s | %s |\n", r[0], mdCell(r[1]))
	}
	fmt.Fprintf(&p, "\nCommand (from the repository root, as root):\n\n```sh\n%s\n```\n\n", strings.TrimRight(t.Command, "\n"))

	count := map[string]int{}
	var order []string
	for _, r := range b.Coverage {
		label, _ := b.mdVerdict(r)
		if count[label] == 0 {
			order = append(order, label)
		}
		count[label]++
	}
	sort.SliceStable(order, func(i, j int) bool { return verdictRank(order[i]) < verdictRank(order[j]) })
	var parts []string
	for _, l := range order {
		parts = append(parts, fmt.Sprintf("%s %d", l, count[l]))
	}
	fmt.Fprintf(&p, "**%d runtime-level requirements: %s.**", len(b.Coverage), strings.Join(parts, ", "))
	if env.Passed {
		p.WriteString(" The run passed.\n\n")
	} else {
		p.WriteString(" The run failed.\n\n")
	}

	p.WriteString("## Requirements not passed\n\n")
	var notPassed []string
	for _, r := range b.Coverage {
		label, _ := b.mdVerdict(r)
		if label == mdPassed {
			continue
		}
		why := t.Reasons[r.ID]
		switch {
		case why != "":
		case label == mdPending, label == mdNotCheckable:
			why = r.Note
		case label == mdNotRun:
			why = "not run: an earlier spec of the ordered scenario it belongs to failed, or its pod failed in BeforeAll"
		case label == mdNotDeclared:
			why = "the runtime does not declare profile " + r.Profile
		}
		notPassed = append(notPassed, fmt.Sprintf("| %s | %s | %s | %s | %s |", r.ID, r.Level, r.Profile, label, mdCell(why)))
	}
	if len(notPassed) == 0 {
		p.WriteString("None.\n\n")
	} else {
		p.WriteString("| requirement | level | profile | verdict | why |\n|---|---|---|---|---|\n")
		p.WriteString(strings.Join(notPassed, "\n") + "\n\n")
	}
	if n := strings.TrimSpace(t.Notes); n != "" {
		p.WriteString(n + "\n\n")
	}

	p.WriteString("## Every requirement\n\n| requirement | level | profile | verdict |\n|---|---|---|---|\n")
	for _, r := range b.Coverage {
		label, _ := b.mdVerdict(r)
		fmt.Fprintf(&p, "| %s | %s | %s | %s |\n", r.ID, r.Level, r.Profile, label)
	}
	_, err = io.WriteString(w, p.String())
	return err
}

// verdictRank orders the counts of a page's summary.
func verdictRank(label string) int {
	switch {
	case label == mdPassed:
		return 0
	case label == mdFailed:
		return 1
	case strings.HasPrefix(label, suites.VerdictNotMet):
		return 2
	case label == mdNotRun:
		return 3
	case label == mdNotCheckable:
		return 4
	case label == mdNotDeclared:
		return 5
	case label == mdPending:
		return 6
	}
	return 7
}

// mdCell makes text safe in a Markdown table cell: one line, no bare pipe.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// RenderMatrixMarkdown writes the matrix of several certification bundles as one Markdown
// table (docs/certification/README.md): a column per bundle, headed by names (one per bundle),
// a row of counts, then a row per runtime-level requirement with its verdict in each bundle.
func RenderMatrixMarkdown(w io.Writer, bundles []*Bundle, names []string) error {
	if len(bundles) == 0 || len(names) != len(bundles) {
		return fmt.Errorf("a name per bundle is needed")
	}
	index := map[string]int{}
	var ids, levels, profiles []string
	var cells [][]string
	counts := make([]map[string]int, len(bundles))
	for bi, b := range bundles {
		if !b.Env.Certify || b.Seal != nil {
			return fmt.Errorf("%s is not a sealed certification bundle", b.Dir)
		}
		counts[bi] = map[string]int{}
		for _, r := range b.Coverage {
			i, ok := index[r.ID]
			if !ok {
				i = len(ids)
				index[r.ID] = i
				ids, levels, profiles = append(ids, r.ID), append(levels, r.Level), append(profiles, r.Profile)
				cells = append(cells, make([]string, len(bundles)))
			}
			label, _ := b.mdVerdict(r)
			counts[bi][label]++
			cells[i][bi] = label
		}
	}
	icon := map[string]string{mdPassed: "✅ passed", mdFailed: "❌ failed", mdNotRun: "○ not run", mdNotCheckable: "◌ not checkable", mdNotDeclared: "— not declared", mdPending: "· pending"}
	var p strings.Builder
	p.WriteString("| |")
	for _, n := range names {
		p.WriteString(" " + mdCell(n) + " |")
	}
	p.WriteString("\n|---|" + strings.Repeat("---|", len(names)) + "\n| **passed / failed / other** |")
	for bi := range bundles {
		c := counts[bi]
		other := 0
		for l, n := range c {
			if l != mdPassed && l != mdFailed {
				other += n
			}
		}
		fmt.Fprintf(&p, " %d / %d / %d |", c[mdPassed], c[mdFailed], other)
	}
	p.WriteString("\n")
	for i, id := range ids {
		fmt.Fprintf(&p, "| %s (%s, %s) |", id, levels[i], profiles[i])
		for _, l := range cells[i] {
			switch {
			case l == "":
				l = "·"
			case icon[l] != "":
				l = icon[l]
			case strings.HasPrefix(l, suites.VerdictNotMet):
				l = "⚠️ " + l
			}
			p.WriteString(" " + mdCell(l) + " |")
		}
		p.WriteString("\n")
	}
	_, err := io.WriteString(w, p.String())
	return err
}
