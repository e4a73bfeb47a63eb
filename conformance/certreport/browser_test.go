package certreport

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/internal/chromium"
)

// The browser tests render the pages in a real headless Chromium (Debian's chromium package;
// scripts/install-deps.sh installs it) and check what a reader sees: laid out, in order, where
// the events put it, with nothing loaded and no console message. Screenshots go to $ARTIFACTS
// (or the test's temporary directory), never into the repository.

// artifacts is where screenshots go.
func artifacts(t *testing.T) string {
	if d := os.Getenv("ARTIFACTS"); d != "" {
		dir := filepath.Join(d, "certreport")
		if err := os.MkdirAll(dir, 0o755); err == nil {
			return dir
		}
	}
	return t.TempDir()
}

// measure is the script the browser runs on the page: what is shown, where.
const measure = `
var rect = function(e){ var r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
return {
  verdict: document.getElementById("verdict").dataset.verdict,
  resources: performance.getEntriesByType("resource").map(function(e){ return e.name; }),
  scripts: document.scripts.length,
  failures: Array.from(document.querySelectorAll("section.failure[id^=failure-]")).map(function(s){
    return {reqs: s.dataset.requirements, title: s.querySelector("h3").textContent, box: rect(s),
      assertion: s.querySelector("pre.assertion").textContent.length};
  }),
  rows: Array.from(document.querySelectorAll("tr.req")).map(function(r){ return [r.dataset.id, r.dataset.verdict]; }),
  openAreas: Array.from(document.querySelectorAll("details.area[open]")).map(function(d){ return d.id; }),
  timelines: Array.from(document.querySelectorAll("svg.podspec-timeline")).map(function(svg){
    return {
      box: rect(svg),
      lanes: Array.from(svg.querySelectorAll("g.lane")).map(function(g){ return {c: g.dataset.container, y: rect(g.querySelector("text.name")).y}; }),
      ticks: Array.from(svg.querySelectorAll("g.tick")).map(function(g){ return {s: +g.dataset.s, x: rect(g.querySelector("line")).x}; }),
      budgets: Array.from(svg.querySelectorAll("g.budget-span")).map(function(g){ var r = rect(g.querySelector("rect.budget")); return {from: +g.dataset.from, to: +g.dataset.to, x: r.x, w: r.w}; }),
      kills: Array.from(svg.querySelectorAll("g.mark-signal[data-label=SIGKILL]")).map(function(g){ return {t: +g.dataset.t, x: rect(g.querySelector("path")).x + rect(g.querySelector("path")).w/2}; })
    };
  })
};`

type box struct{ X, Y, W, H float64 }

type measured struct {
	Verdict   string
	Resources []string
	Scripts   int
	Failures  []struct {
		Reqs, Title string
		Box         box
		Assertion   int
	}
	Rows      [][2]string
	OpenAreas []string
	Timelines []struct {
		Box   box
		Lanes []struct {
			C string
			Y float64
		}
		Ticks   []struct{ S, X float64 }
		Budgets []struct {
			From, To, X, W float64
		}
		Kills []struct{ T, X float64 }
	}
}

func inspect(t *testing.T, page string) measured {
	t.Helper()
	var m measured
	chromium.Measure(t, []byte(page), measure, chromium.Window{Width: 1280, Height: 900}, &m)
	if len(m.Resources) > 0 {
		t.Errorf("the page loaded %v; it must be self-contained", m.Resources)
	}
	if m.Scripts != 1 { // the measuring script itself
		t.Errorf("the page has %d scripts of its own", m.Scripts-1)
	}
	return m
}

// xAt is where the axis puts second s, from the ticks the browser laid out.
func xAt(t *testing.T, ticks []struct{ S, X float64 }, s float64) float64 {
	t.Helper()
	if len(ticks) < 2 {
		t.Fatal("fewer than two ticks")
	}
	a, b := ticks[0], ticks[len(ticks)-1]
	return a.X + (s-a.S)*(b.X-a.X)/(b.S-a.S)
}

func TestBrowserShowsEveryFailedRequirementAndItsTimeline(t *testing.T) {
	chromium.Need(t)
	b := load(t, "failing")
	page := render(t, b)
	m := inspect(t, page)
	if m.Verdict != "failed" {
		t.Errorf("verdict %q", m.Verdict)
	}
	shown := map[string]bool{}
	for _, f := range m.Failures {
		if f.Box.H < 50 || f.Box.W < 300 || f.Assertion == 0 {
			t.Errorf("failure %q is not laid out readably: %+v", f.Title, f)
		}
		for _, id := range strings.Fields(f.Reqs) {
			shown[id] = true
		}
	}
	for _, id := range failedIDs(b) {
		if !shown[id] {
			t.Errorf("failed requirement %s not shown", id)
		}
	}
	if len(m.Rows) != len(b.Coverage) {
		t.Errorf("%d matrix rows, want %d", len(m.Rows), len(b.Coverage))
	}
	if len(m.Timelines) != len(m.Failures) {
		t.Fatalf("%d timelines for %d failures", len(m.Timelines), len(m.Failures))
	}
	tl := m.Timelines[0]
	// The lanes follow the containers' creation in the recorded events.
	var order []string
	for i, l := range tl.Lanes {
		order = append(order, l.C)
		if i > 0 && l.Y <= tl.Lanes[i-1].Y {
			t.Errorf("lane %s is not below %s", l.C, tl.Lanes[i-1].C)
		}
	}
	if want := creationOrder(t, b); strings.Join(order, " ") != want {
		t.Errorf("lanes %v, want %s", order, want)
	}
	if len(tl.Budgets) != 1 {
		t.Fatalf("%d budget spans", len(tl.Budgets))
	}
	bg := tl.Budgets[0]
	if from := xAt(t, tl.Ticks, bg.From); math.Abs(bg.X-from) > 1.5 {
		t.Errorf("the budget span begins at x=%.1f, the stop request is at x=%.1f", bg.X, from)
	}
	if to := xAt(t, tl.Ticks, bg.To); math.Abs(bg.X+bg.W-to) > 1.5 {
		t.Errorf("the budget span ends at x=%.1f, its deadline is at x=%.1f", bg.X+bg.W, to)
	}
	// The mutant's SIGKILL: drawn where it was sent, clearly after the deadline.
	if len(tl.Kills) != 1 || math.Abs(tl.Kills[0].X-xAt(t, tl.Ticks, tl.Kills[0].T)) > 1.5 || tl.Kills[0].T < bg.To+1 {
		t.Errorf("SIGKILL marks %+v, budget to %.3f", tl.Kills, bg.To)
	}
	screenshot(t, page, "failing-report.png", 1280, 2400)
}

func TestBrowserShowsAPassingBundleAndTheMatrix(t *testing.T) {
	chromium.Need(t)
	pass, fail := load(t, "passing"), load(t, "failing")
	m := inspect(t, render(t, pass))
	if m.Verdict != "passed" || len(m.Failures) != 0 || len(m.Timelines) != 0 {
		t.Errorf("passing bundle: verdict %q, %d failures, %d timelines", m.Verdict, len(m.Failures), len(m.Timelines))
	}
	matrix := renderMatrix(t, pass, fail)
	var mm struct {
		Cols      []string
		Stop010   []string
		Width     float64
		Resources int
	}
	chromium.Measure(t, []byte(matrix), `return {
      cols: Array.from(document.querySelectorAll("th.col")).map(function(e){ return e.textContent; }),
      stop010: Array.from(document.querySelectorAll("tr[data-id=STOP-010] td.cell")).map(function(e){ return e.dataset.verdict; }),
      width: document.getElementById("matrix").getBoundingClientRect().width,
      resources: performance.getEntriesByType("resource").length};`, chromium.Window{Width: 1280, Height: 900}, &mm)
	if len(mm.Cols) != 2 || strings.Join(mm.Stop010, ",") != "passed,failed" || mm.Width < 400 || mm.Resources != 0 {
		t.Errorf("matrix: %+v", mm)
	}
	screenshot(t, matrix, "matrix.png", 1280, 1200)
}

func screenshot(t *testing.T, page, name string, w, h int) {
	t.Helper()
	dir := artifacts(t)
	file := filepath.Join(dir, strings.TrimSuffix(name, ".png")+".html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromium.Screenshot(context.Background(), file, filepath.Join(dir, name), chromium.Window{Width: w, Height: h}); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", filepath.Join(dir, name))
}

// creationOrder is the order of the first ContainerCreated of each container in the first
// failed spec's recorded timeline.
func creationOrder(t *testing.T, b *Bundle) string {
	t.Helper()
	for _, sr := range b.Report.SpecReports {
		for _, e := range sr.ReportEntries {
			if e.Name != framework.TimelineEntry {
				continue
			}
			var rec framework.TimelineRecord
			if err := json.Unmarshal([]byte(e.Value.AsJSON), &rec); err != nil {
				t.Fatal(err)
			}
			var order []string
			seen := map[string]bool{}
			for _, ev := range rec.Events {
				if ev.Type == runtimev1.EventContainerCreated && !seen[ev.Container] {
					seen[ev.Container] = true
					order = append(order, ev.Container)
				}
			}
			return strings.Join(order, " ")
		}
	}
	t.Fatal("no recorded timeline in the bundle")
	return ""
}
