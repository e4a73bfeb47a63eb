package timeline

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/internal/chromium"
)

// The browser test draws recorded pods in a real headless Chromium (Debian's chromium package;
// scripts/install-deps.sh installs it), in the light and the dark scheme, and checks the laid-out
// picture against the events: lanes in order, the budget span and the SIGKILL where the axis
// puts their moments, no console message, nothing loaded. Screenshots go to $ARTIFACTS (or the
// test's temporary directory).

const measureSVG = `
var svg = document.querySelector("svg.podspec-timeline");
var rect = function(e){ var r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
return {
  box: rect(svg),
  bg: getComputedStyle(svg.querySelector("rect.bg")).fill,
  text: getComputedStyle(svg.querySelector("text.name")).fill,
  font: getComputedStyle(svg.querySelector("text.name")).fontFamily,
  resources: performance.getEntriesByType("resource").length,
  lanes: Array.from(svg.querySelectorAll("g.lane")).map(function(g){ return {c: g.dataset.container, y: rect(g.querySelector("text.name")).y}; }),
  ticks: Array.from(svg.querySelectorAll("g.tick")).map(function(g){ return {s: +g.dataset.s, x: rect(g.querySelector("line")).x}; }),
  budgets: Array.from(svg.querySelectorAll("g.budget-span")).map(function(g){ var r = rect(g.querySelector("rect.budget")); return {from: +g.dataset.from, to: +g.dataset.to, x: r.x, w: r.w}; }),
  kills: Array.from(svg.querySelectorAll("g.lane g.mark-signal[data-label=SIGKILL] path")).map(function(p){ var r = rect(p); return {t: +p.parentNode.dataset.t, x: r.x + r.w/2}; })
};`

type svgMeasure struct {
	Box            struct{ W, H float64 }
	Bg, Text, Font string
	Resources      int
	Lanes          []struct {
		C string
		Y float64
	}
	Ticks   []struct{ S, X float64 }
	Budgets []struct{ From, To, X, W float64 }
	Kills   []struct{ T, X float64 }
}

func (m svgMeasure) xAt(s float64) float64 {
	a, b := m.Ticks[0], m.Ticks[len(m.Ticks)-1]
	return a.X + (s-a.S)*(b.X-a.X)/(b.S-a.S)
}

func TestBrowserDrawsTheStubbornPodInBothSchemes(t *testing.T) {
	chromium.Need(t)
	evs := loadEvents(t, "stubborn")
	svg := SVG(Build(evs, Options{}))
	page := "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">" + string(svg) + "</body></html>"
	var bgs []string
	for _, dark := range []bool{false, true} {
		var m svgMeasure
		chromium.Measure(t, []byte(page), measureSVG, chromium.Window{Width: 1100, Height: 500, Dark: dark}, &m)
		if m.Resources != 0 || m.Box.W != width {
			t.Errorf("picture %vx%v, %d resources loaded", m.Box.W, m.Box.H, m.Resources)
		}
		if m.Bg == m.Text {
			t.Errorf("text and background both %s", m.Bg)
		}
		bgs = append(bgs, m.Bg)
		var order []string
		for i, l := range m.Lanes {
			order = append(order, l.C)
			if i > 0 && l.Y <= m.Lanes[i-1].Y {
				t.Errorf("lane %s is not below %s", l.C, m.Lanes[i-1].C)
			}
		}
		var want []string
		for _, ev := range evs {
			if ev.Type == runtimev1.EventContainerCreated {
				want = append(want, ev.Container)
			}
		}
		if strings.Join(order, " ") != strings.Join(want, " ") {
			t.Errorf("lanes %v, want the creation order %v", order, want)
		}
		if len(m.Budgets) != 1 || len(m.Kills) != 1 {
			t.Fatalf("%d budgets, %d SIGKILLs", len(m.Budgets), len(m.Kills))
		}
		bg := m.Budgets[0]
		stop := find(t, evs, "StopRequested", "", 0)
		if math.Abs(bg.X-m.xAt(at(evs, stop))) > 1.5 || math.Abs(bg.X+bg.W-m.xAt(at(evs, stop)+3)) > 1.5 {
			t.Errorf("budget drawn over x %.1f-%.1f, the stop request + 3 s is %.1f-%.1f", bg.X, bg.X+bg.W, m.xAt(at(evs, stop)), m.xAt(at(evs, stop)+3))
		}
		kill := find(t, evs, "SignalSent", "stubborn", 1)
		// Drawn where it was sent, which is at the budget end (up to the reaction time after it).
		if k := m.Kills[0]; math.Abs(k.X-m.xAt(at(evs, kill))) > 1.5 || k.X < m.xAt(bg.To-0.05)-1.5 || k.X > m.xAt(bg.To+1)+1.5 {
			t.Errorf("SIGKILL drawn at x=%.1f, sent at x=%.1f, the budget ends at x=%.1f", k.X, m.xAt(at(evs, kill)), bg.X+bg.W)
		}
		dir := t.TempDir()
		if a := os.Getenv("ARTIFACTS"); a != "" {
			dir = filepath.Join(a, "timeline")
			os.MkdirAll(dir, 0o755)
		}
		file := filepath.Join(dir, "stubborn.svg")
		os.WriteFile(file, svg, 0o644)
		name := map[bool]string{false: "stubborn-light.png", true: "stubborn-dark.png"}[dark]
		if err := chromium.Screenshot(context.Background(), file, filepath.Join(dir, name), chromium.Window{Width: 1000, Height: int(m.Box.H), Dark: dark}); err != nil {
			t.Error(err)
		}
	}
	if bgs[0] == bgs[1] {
		t.Errorf("the dark scheme has the light background %s", bgs[0])
	}
}
