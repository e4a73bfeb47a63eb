package certreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/certify"
	"podspec.dev/podspec/conformance/suites"
)

// certBundle unpacks testdata/NAME.tar.gz as a sealed certification bundle: the recorded runs
// were filtered, so the environment is marked --certify without a selection and the
// directory sealed again (the page generator only takes sealed certification bundles).
func certBundle(t *testing.T, name string) *Bundle {
	t.Helper()
	dir := unpack(t, name)
	path := filepath.Join(dir, certify.EnvironmentFile)
	var env map[string]any
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	env["certify"], env["selection"] = true, map[string]any{}
	data, _ = json.Marshal(env)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := certify.Seal(dir); err != nil {
		t.Fatal(err)
	}
	b, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Seal != nil {
		t.Fatal(b.Seal)
	}
	return b
}

// triageFor gives a reason to every requirement of b that failed.
func triageFor(b *Bundle) *Triage {
	t := &Triage{Title: "Reference runtime on runc (test)", Command: "scripts/certify-oci.sh runc OUT", Reasons: map[string]string{}}
	for _, id := range failedIDs(b) {
		t.Reasons[id] = "the mutant sends SIGKILL 3 s after the budget | ends (" + id + ")"
	}
	return t
}

func renderMD(t *testing.T, b *Bundle, tr *Triage) (string, error) {
	t.Helper()
	var buf bytes.Buffer
	err := RenderMarkdown(&buf, b, tr, "/work/cert-bundles/test")
	return buf.String(), err
}

func TestMarkdownPageShowsVersionsCommandDigestAndEachFailureWithItsReason(t *testing.T) {
	b := certBundle(t, "failing")
	tr := triageFor(b)
	page, err := renderMD(t, b, tr)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(b.Dir, certify.SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	d := sha256.Sum256(sums)
	for _, want := range []string{
		"# Certification: Reference runtime on runc (test)\n",
		"`/work/cert-bundles/test`",
		"`" + hex.EncodeToString(d[:]) + "`",
		"| OCI runtime | runc 1.1.5+ds1 (`/usr/sbin/runc`) |",
		"| declared profiles | core, defer, notifier, update, gc, recovery |",
		"```sh\nscripts/certify-oci.sh runc OUT\n```",
		"The run failed.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	ids := failedIDs(b)
	if len(ids) == 0 {
		t.Fatal("the failing bundle has no failed requirement")
	}
	for _, id := range ids {
		// In the table of requirements not passed, with its reason (its pipe escaped), and in
		// the table of every requirement.
		row := "| " + id + " | "
		if n := strings.Count(page, row); n != 2 {
			t.Errorf("%s is in %d table rows, want 2", id, n)
		}
		if !strings.Contains(page, `budget \| ends (`+id+`) |`) {
			t.Errorf("the reason of %s is not on its row", id)
		}
	}
	// The pending requirement carries the waiver's reason; a skipped spec of a declared
	// profile is "not run", not "not applicable".
	for _, r := range b.Coverage {
		switch r.Verdict {
		case suites.VerdictPending:
			if !strings.Contains(page, "| pending | "+mdCell(r.Note)+" |") {
				t.Errorf("pending %s without its waiver's reason", r.ID)
			}
		case suites.VerdictSkipped:
			if !strings.Contains(page, "| "+r.ID+" | "+r.Level+" | "+r.Profile+" | not run |") {
				t.Errorf("skipped %s of declared profile %s is not 'not run'", r.ID, r.Profile)
			}
		}
	}
	if !strings.Contains(page, "runtime-level requirements: failed 4, not run 213, pending 1.**") {
		t.Errorf("the counts are wrong:\n%s", page[:strings.Index(page, "## Requirements not passed")])
	}
}

func TestMarkdownPageRefusesAFailureWithoutReasonAndAReasonForARequirementThatPassed(t *testing.T) {
	failing := certBundle(t, "failing")
	tr := triageFor(failing)
	missing := failedIDs(failing)[0]
	delete(tr.Reasons, missing)
	if _, err := renderMD(t, failing, tr); err == nil || !strings.Contains(err.Error(), missing+" failed and has no reason") {
		t.Errorf("a failure without a reason: %v", err)
	}

	passing := certBundle(t, "passing")
	var passed string
	for _, r := range passing.Coverage {
		if r.Verdict == suites.VerdictPassed {
			passed = r.ID
			break
		}
	}
	if passed == "" {
		t.Fatal("the passing bundle has no passed requirement")
	}
	tr = &Triage{Title: "x", Command: "y", Reasons: map[string]string{passed: "it failed once", "NOPE-001": "no such"}}
	_, err := renderMD(t, passing, tr)
	if err == nil || !strings.Contains(err.Error(), passed+" has a reason but passed") || !strings.Contains(err.Error(), "NOPE-001 has a reason but is not a requirement of the bundle") {
		t.Errorf("reasons for a passed and an unknown requirement: %v", err)
	}
	tr.Reasons = nil
	page, err := renderMD(t, passing, tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "The run passed.") {
		t.Error("a passing run's page does not say it passed")
	}
}

func TestMarkdownPageRefusesAnUnsealedOrFilteredBundle(t *testing.T) {
	b := load(t, "failing") // a filtered run, not sealed
	if _, err := renderMD(t, b, triageFor(b)); err == nil {
		t.Error("a bundle that is not a certification run was rendered")
	}
	c := certBundle(t, "failing")
	if err := os.WriteFile(filepath.Join(c.Dir, certify.CoverageJSON), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Seal = certify.CheckSeal(c.Dir)
	if _, err := renderMD(t, c, triageFor(c)); err == nil {
		t.Error("a bundle whose seal is broken was rendered")
	}
}

func TestLoadTriageRefusesUnknownFieldsAndMultilineReasons(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown":   "title: t\ncommand: c\nreason: {}\n",
		"multiline": "title: t\ncommand: c\nreasons:\n  STOP-010: |\n    one\n    two\n",
		"untitled":  "command: c\n",
	} {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadTriage(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	p := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(p, []byte("title: t\ncommand: c\nfacts:\n  - {name: podman, value: '4.3.1'}\nreasons:\n  STOP-010: late SIGKILL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := LoadTriage(p)
	if err != nil || tr.Reasons["STOP-010"] != "late SIGKILL" || len(tr.Facts) != 1 {
		t.Errorf("good triage: %+v, %v", tr, err)
	}
}

func TestMarkdownMatrixHasAColumnPerBundleAndARowPerRequirement(t *testing.T) {
	a, b := certBundle(t, "passing"), certBundle(t, "failing")
	var buf bytes.Buffer
	if err := RenderMatrixMarkdown(&buf, []*Bundle{a, b}, []string{"passing run", "failing run"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.HasPrefix(page, "| | passing run | failing run |\n|---|---|---|\n| **passed / failed / other** |") {
		t.Errorf("matrix header:\n%s", page[:200])
	}
	id := failedIDs(b)[0]
	var level, profile string
	for _, r := range b.Coverage {
		if r.ID == id {
			level, profile = r.Level, r.Profile
		}
	}
	if !strings.Contains(page, "| "+id+" ("+level+", "+profile+") | ") || !strings.Contains(page, " | ❌ failed |\n") {
		t.Errorf("no row of %s with its failure", id)
	}
	if err := RenderMatrixMarkdown(&buf, []*Bundle{a}, nil); err == nil {
		t.Error("a matrix without column names was rendered")
	}
}

// A spec of a declared profile that skipped itself, saying why (SEC-007's on a runtime whose
// contract does not name its state directories), is "not checkable" with that reason, on the
// Markdown page and in the HTML report; never "not run" or "not applicable".
func TestASelfSkippedSpecIsNotCheckableWithItsReason(t *testing.T) {
	b := certBundle(t, "failing")
	const why = "not checkable: the runtime reports contract 1.1"
	id := ""
	for i, r := range b.Coverage {
		if r.Verdict == suites.VerdictSkipped && b.Version.Has(runtimev1.Profile(r.Profile)) {
			b.Coverage[i].Note, id = why, r.ID
			break
		}
	}
	if id == "" {
		t.Fatal("the failing bundle has no skipped requirement of a declared profile")
	}
	page, err := renderMD(t, b, triageFor(b))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "| "+id+" | ") || !strings.Contains(page, " | not checkable | "+why+" |") {
		t.Errorf("%s is not 'not checkable' with its reason on the page", id)
	}
	if !strings.Contains(page, ", not checkable 1,") {
		t.Errorf("the page's counts do not count it:\n%s", page[:strings.Index(page, "## Requirements not passed")])
	}
	html := render(t, b)
	row := regexp.MustCompile(`<tr class="req" data-id="` + id + `"[^\n]*`).FindString(html)
	if !strings.Contains(row, ">not checkable<") || !strings.Contains(row, why) {
		t.Errorf("the HTML report's row of %s is not 'not checkable' with its reason: %s", id, row)
	}
}
