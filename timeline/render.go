package timeline

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Geometry of a picture, in SVG user units (pixels at 100 %).
const (
	width     = 1000.0
	labelW    = 150.0 // the lane names
	rightPad  = 90.0  // room for the labels at the last bar's end
	headerH   = 70.0  // title and legend
	podLaneH  = 40.0
	laneH     = 46.0
	axisH     = 44.0
	barH      = 12.0
	fontSmall = 10.0
	charW     = 5.7 // mean advance of a 10 px sans-serif character
	maxLabel  = 36  // characters of a label; the tooltip has the rest
)

// Style is the picture's style sheet: colours for a light and a dark scheme, system fonts only.
// Every rule is scoped to svg.podspec-timeline so that a page can inline several pictures.
const Style = `svg.podspec-timeline{--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--grid:#d8dee4;--created:#c6d0da;--running:#54aeff;--ready:#1f883d;--budget:rgba(207,34,46,.13);--deadline:#cf222e;--signal:#9a6700;--fail:#cf222e;--hook:#8250df;--notifier:#0969da;--policy:#bc4c00;--stop:#cf222e;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
@media (prefers-color-scheme:dark){svg.podspec-timeline{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--grid:#30363d;--created:#3d444d;--running:#388bfd;--ready:#3fb950;--budget:rgba(248,81,73,.18);--deadline:#f85149;--signal:#d29922;--fail:#f85149;--hook:#ab7df8;--notifier:#4493f8;--policy:#db6d28;--stop:#f85149}}
svg.podspec-timeline .bg{fill:var(--bg)}
svg.podspec-timeline text{fill:var(--fg);font-size:10px}
svg.podspec-timeline .title{font-size:15px;font-weight:600}
svg.podspec-timeline .muted,svg.podspec-timeline .kind,svg.podspec-timeline .tick text{fill:var(--muted)}
svg.podspec-timeline .name{font-size:12px;font-weight:600}
svg.podspec-timeline .grid{stroke:var(--grid);stroke-width:1}
svg.podspec-timeline .lane-bg{fill:var(--grid);opacity:.25}
svg.podspec-timeline .seg-created{fill:var(--created)}
svg.podspec-timeline .seg-running{fill:var(--running)}
svg.podspec-timeline .seg-ready{fill:var(--ready)}
svg.podspec-timeline .open{stroke:var(--running);stroke-width:2;stroke-dasharray:3 2}
svg.podspec-timeline .backoff{stroke:var(--muted);stroke-width:1.5;stroke-dasharray:2 3}
svg.podspec-timeline .budget{fill:var(--budget)}
svg.podspec-timeline .deadline{stroke:var(--deadline);stroke-width:2}
svg.podspec-timeline .deadline-label{fill:var(--deadline);font-weight:600}
svg.podspec-timeline .stopline{stroke:var(--stop);stroke-width:1.5;stroke-dasharray:5 3}
svg.podspec-timeline .mark-signal path{fill:var(--signal)}
svg.podspec-timeline .mark-signal text{fill:var(--signal);font-weight:600}
svg.podspec-timeline .mark-probe circle{fill:var(--ready)}
svg.podspec-timeline .mark-hook rect,svg.podspec-timeline .mark-hook circle{fill:var(--hook)}
svg.podspec-timeline .mark-notifier rect,svg.podspec-timeline .mark-notifier circle{fill:var(--notifier)}
svg.podspec-timeline .mark-policy path{fill:var(--policy)}
svg.podspec-timeline .mark-policy text{fill:var(--policy);font-weight:600}
svg.podspec-timeline .mark-stop path,svg.podspec-timeline .mark-pod path{fill:var(--fg)}
svg.podspec-timeline .mark-stop text{fill:var(--stop);font-weight:600}
svg.podspec-timeline .mark-restart path{stroke:var(--muted);fill:none;stroke-width:1.5}
svg.podspec-timeline .mark-skip path{stroke:var(--fail);stroke-width:2}
svg.podspec-timeline .mark-note circle{fill:none;stroke:var(--muted);stroke-width:1.2}
svg.podspec-timeline .mark-note text{fill:var(--muted);font-style:italic}
svg.podspec-timeline .failed circle,svg.podspec-timeline .failed rect{fill:var(--fail)}
svg.podspec-timeline .failed text,svg.podspec-timeline text.failed{fill:var(--fail);font-weight:600}
svg.podspec-timeline .end{font-weight:600}`

// Render writes the model as one <svg> element (no XML declaration, so that it can be inlined
// into HTML as it is and still is a complete SVG document on its own).
func Render(w io.Writer, m *Model) error {
	var b bytes.Buffer
	r := newRenderer(m)
	r.draw(&b)
	_, err := w.Write(b.Bytes())
	return err
}

// SVG returns the picture of the model.
func SVG(m *Model) []byte {
	var b bytes.Buffer
	newRenderer(m).draw(&b)
	return b.Bytes()
}

type renderer struct {
	m          *Model
	x0, x1     float64 // the plot's horizontal extent
	span       float64 // seconds the axis covers
	height     float64
	plotTop    float64 // top of the pod lane
	plotBottom float64 // bottom of the last lane
}

func newRenderer(m *Model) *renderer {
	r := &renderer{m: m, x0: labelW + 10, x1: width - rightPad}
	r.span = m.End.Sub(m.Start).Seconds()
	if r.span <= 0 {
		r.span = 1
	}
	r.plotTop = headerH
	r.plotBottom = headerH + podLaneH + float64(len(m.Lanes))*laneH
	r.height = r.plotBottom + axisH
	return r
}

// x maps a moment to its horizontal position.
func (r *renderer) x(t time.Time) float64 {
	if t.IsZero() {
		return r.x0
	}
	return r.x0 + t.Sub(r.m.Start).Seconds()/r.span*(r.x1-r.x0)
}

// sec is a moment in seconds from the start, for the data attributes tests read.
func (r *renderer) sec(t time.Time) string { return ffmt(t.Sub(r.m.Start).Seconds()) }

func ffmt(f float64) string { return fmt.Sprintf("%.3f", f) }

// esc writes s escaped for XML text and attribute values (quotes included); characters XML
// cannot carry become U+FFFD.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}

// short cuts a label to maxLabel characters.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	return string([]rune(s)[:maxLabel-1]) + "…"
}

// clampLabel moves a label that would run over the right edge to end at it.
func clampLabel(x, w float64) float64 { return math.Min(x, width-2-w) }

func textW(s string) float64 { return float64(utf8.RuneCountInString(s))*charW + 4 }

// rows places labels on a lane without overlapping: each row holds the intervals taken.
type rows struct{ taken [][][2]float64 }

func newRows(n int) *rows { return &rows{taken: make([][][2]float64, n)} }

func (rs *rows) free(row int, a, b float64) bool {
	for _, iv := range rs.taken[row] {
		if a < iv[1] && iv[0] < b {
			return false
		}
	}
	return true
}

func (rs *rows) take(row int, a, b float64) { rs.taken[row] = append(rs.taken[row], [2]float64{a, b}) }

// place returns the first of the preferred rows where [a,b) is free (taking it), or -1 when
// none is.
func (rs *rows) place(a, b float64, prefer ...int) int {
	for _, row := range prefer {
		if rs.free(row, a, b) {
			rs.take(row, a, b)
			return row
		}
	}
	return -1
}

// must is place for a label that is drawn even where it overlaps another: the first
// preferred row when none is free.
func (rs *rows) must(a, b float64, prefer ...int) int {
	if row := rs.place(a, b, prefer...); row >= 0 {
		return row
	}
	rs.take(prefer[0], a, b)
	return prefer[0]
}

// Label rows of a lane: above the bar, on its line (right of a bar's end), below it.
const (
	rowAbove = iota
	rowMiddle
	rowBelow
)

func (r *renderer) draw(b *bytes.Buffer) {
	m := r.m
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="podspec-timeline" width="%g" height="%g" viewBox="0 0 %g %g" role="img" data-start="%s" data-span="%s" data-x0="%s" data-x1="%s">`,
		width, r.height, width, r.height, esc(m.Start.UTC().Format(time.RFC3339Nano)), ffmt(r.span), ffmt(r.x0), ffmt(r.x1))
	fmt.Fprintf(b, "\n<title>%s</title>\n<style>%s</style>\n", esc(m.Title), Style)
	fmt.Fprintf(b, `<rect class="bg" width="%g" height="%g"/>`+"\n", width, r.height)
	r.header(b)
	r.grid(b)
	r.budgets(b)
	r.podLane(b)
	for i, l := range m.Lanes {
		r.lane(b, i, l)
	}
	r.stopLines(b)
	b.WriteString("</svg>\n")
}

func (r *renderer) header(b *bytes.Buffer) {
	m := r.m
	sub := fmt.Sprintf("%s over %s", plural(len(m.Lanes), "container"), dur(m.End.Sub(m.Start)))
	if !m.Start.IsZero() {
		sub += ", from " + m.Start.UTC().Format("2006-01-02 15:04:05.000 UTC")
	}
	if !m.Finished && !m.Start.IsZero() {
		sub += " (not finished)"
	}
	fmt.Fprintf(b, `<text class="title" x="12" y="22">%s</text>`, esc(short2(m.Title, 60)))
	fmt.Fprintf(b, `<text class="muted" x="12" y="38">%s</text>`+"\n", esc(sub))
	// The legend.
	x := 12.0
	item := func(class, label string) {
		fmt.Fprintf(b, `<rect class="%s" x="%s" y="46" width="14" height="9"/><text class="muted" x="%s" y="54">%s</text>`, class, ffmt(x), ffmt(x+18), label)
		x += 24 + textW(label)
	}
	b.WriteString(`<g class="legend">`)
	item("seg-created", "created")
	item("seg-running", "running")
	item("seg-ready", "ready")
	item("budget", "grace budget")
	fmt.Fprintf(b, `<g class="mark-signal"><path d="M%s 46h10l-5 8z"/></g><text class="muted" x="%s" y="54">signal sent</text>`, ffmt(x), ffmt(x+14))
	x += 24 + textW("signal sent")
	fmt.Fprintf(b, `<line class="stopline" x1="%s" y1="45" x2="%s" y2="56"/><text class="muted" x="%s" y="54">stop request</text>`, ffmt(x+4), ffmt(x+4), ffmt(x+10))
	b.WriteString("</g>\n")
}

func short2(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// dur prints a duration to milliseconds.
func dur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".") + " s"
}

// tickStep is the smallest pleasant step that gives at most ten ticks.
func tickStep(span float64) float64 {
	for _, s := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400} {
		if span/s <= 10 {
			return s
		}
	}
	return math.Ceil(span/10/86400) * 86400
}

func (r *renderer) grid(b *bytes.Buffer) {
	step := tickStep(r.span)
	fmt.Fprintf(b, `<g class="axis" data-step="%s">`, ffmt(step))
	for i := 0; float64(i)*step <= r.span+1e-9; i++ {
		s := float64(i) * step
		x := r.x0 + s/r.span*(r.x1-r.x0)
		label := fmt.Sprintf("+%gs", math.Round(s*1000)/1000)
		fmt.Fprintf(b, `<g class="tick" data-s="%s"><line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/><text x="%s" y="%s" text-anchor="middle">%s</text></g>`,
			ffmt(s), ffmt(x), ffmt(r.plotTop), ffmt(x), ffmt(r.plotBottom+4), ffmt(x), ffmt(r.plotBottom+18), label)
	}
	b.WriteString("</g>\n")
	for i := range r.m.Lanes {
		if i%2 == 0 {
			y := r.plotTop + podLaneH + float64(i)*laneH
			fmt.Fprintf(b, `<rect class="lane-bg" x="0" y="%s" width="%g" height="%g"/>`, ffmt(y), width, laneH)
		}
	}
	b.WriteString("\n")
}

func (r *renderer) budgets(b *bytes.Buffer) {
	for i, bg := range r.m.Budgets {
		x0, x1 := r.x(bg.From), r.x(bg.Deadline)
		clipped := x1 > width-2
		if clipped {
			x1 = width - 2
		}
		what := fmt.Sprintf("grace budget %s", dur(bg.Grace))
		if bg.Force {
			what = "forced stop: no budget"
		}
		fmt.Fprintf(b, `<g class="budget-span" data-index="%d" data-from="%s" data-to="%s" data-grace="%s" data-clipped="%t">`, i, r.sec(bg.From), r.sec(bg.Deadline), ffmt(bg.Grace.Seconds()), clipped)
		fmt.Fprintf(b, `<rect class="budget" x="%s" y="%s" width="%s" height="%s"><title>%s from %s to the deadline %s</title></rect>`,
			ffmt(x0), ffmt(r.plotTop), ffmt(math.Max(x1-x0, 0)), ffmt(r.plotBottom-r.plotTop), esc(what),
			esc(bg.From.UTC().Format("15:04:05.000")), esc(bg.Deadline.UTC().Format("15:04:05.000")))
		fmt.Fprintf(b, `<line class="deadline" x1="%s" y1="%s" x2="%s" y2="%s"/>`, ffmt(x1), ffmt(r.plotTop), ffmt(x1), ffmt(r.plotBottom))
		label := "deadline"
		if !bg.Force {
			label = fmt.Sprintf("deadline (grace %s)", dur(bg.Grace))
		}
		if clipped {
			label = fmt.Sprintf("deadline at +%s s (grace %s) →", ffmt(bg.Deadline.Sub(r.m.Start).Seconds()), dur(bg.Grace))
		}
		anchor, lx := "end", x1-3
		if x1-textW(label) < r.x0 {
			anchor, lx = "start", x1+3
		}
		fmt.Fprintf(b, `<text class="deadline-label" x="%s" y="%s" text-anchor="%s">%s</text></g>`+"\n", ffmt(lx), ffmt(r.plotBottom+34), anchor, label)
	}
}

func (r *renderer) podLane(b *bytes.Buffer) {
	y := r.plotTop
	fmt.Fprintf(b, `<g class="pod-lane"><text class="name" x="12" y="%s">%s</text><text class="kind" x="12" y="%s">pod</text>`,
		ffmt(y+17), esc(short2(r.m.Pod, 22)), ffmt(y+30))
	rs := newRows(2)
	for _, mk := range r.m.PodMarks {
		x := r.x(mk.Time)
		label := short(mk.Label)
		lx := clampLabel(x+2, textW(label))
		row := rs.place(lx-4, lx+textW(label), 0, 1)
		if row < 0 && (mk.Kind == MarkStop || mk.Kind == MarkPolicy) {
			row = rs.must(lx-4, lx+textW(label), 0, 1)
		}
		ty := y + 13 + float64(row)*13
		cls := "mark mark-" + mk.Kind
		if mk.Failed {
			cls += " failed"
		}
		fmt.Fprintf(b, `<g class="%s" data-t="%s" data-label="%s"><title>%s</title><path d="M%s %sl4 5l-4 5l-4-5z"/>`,
			cls, r.sec(mk.Time), esc(mk.Label), esc(mk.Detail), ffmt(x), ffmt(y+podLaneH-12))
		if row >= 0 { // no room: the tooltip has it
			fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`, ffmt(lx), ffmt(ty), esc(label))
		}
		b.WriteString("</g>")
	}
	b.WriteString("</g>\n")
}

// stopLines draws the stop requests across every lane, on top.
func (r *renderer) stopLines(b *bytes.Buffer) {
	for _, mk := range r.m.PodMarks {
		if mk.Kind != MarkStop {
			continue
		}
		x := r.x(mk.Time)
		fmt.Fprintf(b, `<line class="stopline" data-t="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`, r.sec(mk.Time), ffmt(x), ffmt(r.plotTop+podLaneH-2), ffmt(x), ffmt(r.plotBottom))
	}
	b.WriteString("\n")
}

func (r *renderer) lane(b *bytes.Buffer, i int, l *Lane) {
	top := r.plotTop + podLaneH + float64(i)*laneH
	mid := top + laneH/2
	fmt.Fprintf(b, `<g class="lane" data-index="%d" data-container="%s" data-kind="%s">`, i, esc(l.Container), esc(l.Kind))
	fmt.Fprintf(b, `<text class="name" x="12" y="%s">%s</text><text class="kind" x="12" y="%s">%s</text>`,
		ffmt(mid-2), esc(short2(l.Container, 22)), ffmt(mid+11), esc(l.Kind))
	rs := newRows(3)
	ends := make([]float64, len(l.Bars))
	for j, bar := range l.Bars {
		a := r.x(bar.begin())
		e := r.m.End
		if !bar.Exited.IsZero() {
			e = bar.Exited
		}
		ends[j] = math.Max(r.x(e), a+1)
		rs.take(rowMiddle, a, ends[j])
	}
	for j, bar := range l.Bars {
		r.bar(b, bar, mid, ends[j], rs, j+1 < len(l.Bars))
	}
	for _, mk := range l.Marks {
		r.mark(b, l, mk, mid, rs)
	}
	b.WriteString("</g>\n")
}

func (r *renderer) bar(b *bytes.Buffer, bar *Bar, mid, end float64, rs *rows, more bool) {
	y := mid - barH/2
	fmt.Fprintf(b, `<g class="bar" data-container-id="%s" data-restart="%d" data-from="%s" data-to="%s" data-end="%s">`,
		esc(bar.ContainerID), bar.RestartCount, r.sec(bar.begin()), r.secOr(bar.Exited), esc(bar.EndLabel()))
	var tip strings.Builder
	fmt.Fprintf(&tip, "instance %d", bar.RestartCount)
	if bar.ContainerID != "" {
		fmt.Fprintf(&tip, " (%s)", bar.ContainerID)
	}
	for _, p := range []struct {
		what string
		t    time.Time
	}{{"created", bar.Created}, {"started", bar.Started}, {"ready", bar.Ready}, {"exited", bar.Exited}} {
		if !p.t.IsZero() {
			fmt.Fprintf(&tip, "\n%s %s (+%s s)", p.what, p.t.UTC().Format("15:04:05.000"), r.sec(p.t))
		}
	}
	fmt.Fprintf(&tip, "\nend: %s", bar.EndLabel())
	if bar.Reason != "" {
		fmt.Fprintf(&tip, " (%s)", bar.Reason)
	}
	fmt.Fprintf(b, "<title>%s</title>", esc(tip.String()))
	// Segments: created → started → ready → end.
	type seg struct {
		class string
		from  time.Time
	}
	var segs []seg
	if !bar.Created.IsZero() {
		segs = append(segs, seg{"seg-created", bar.Created})
	}
	if !bar.Started.IsZero() {
		segs = append(segs, seg{"seg-running", bar.Started})
	}
	if !bar.Ready.IsZero() && !bar.Started.IsZero() {
		segs = append(segs, seg{"seg-ready", bar.Ready})
	}
	for k, s := range segs {
		a := r.x(s.from)
		e := end
		if k+1 < len(segs) {
			e = r.x(segs[k+1].from)
		}
		fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%g"/>`, s.class, ffmt(a), ffmt(y), ffmt(math.Max(e-a, 0.5)), barH)
	}
	if bar.Exited.IsZero() {
		fmt.Fprintf(b, `<line class="open" x1="%s" y1="%s" x2="%s" y2="%s"/>`, ffmt(end), ffmt(mid), ffmt(end+12), ffmt(mid))
	}
	// The end label: exit code or signal (or lost), right of the bar when there is room.
	label := bar.EndLabel()
	cls := "end"
	if bar.Signal != "" || (bar.ExitCode != nil && *bar.ExitCode != 0) || (bar.ExitCode == nil && !bar.Exited.IsZero()) {
		cls += " failed"
	}
	w := textW(label)
	prefer := []int{rowMiddle, rowBelow, rowAbove}
	if more {
		prefer = []int{rowBelow, rowMiddle, rowAbove}
	}
	lx, ly := clampLabel(end+3, w), mid+3.5
	row := rs.must(lx, lx+w, prefer...)
	switch row {
	case rowAbove:
		lx, ly = clampLabel(math.Max(end-w/2, r.x0), w), mid-barH/2-4
	case rowBelow:
		lx, ly = clampLabel(math.Max(end-w/2, r.x0), w), mid+barH/2+11
	}
	fmt.Fprintf(b, `<text class="%s" x="%s" y="%s">%s</text></g>`, cls, ffmt(lx), ffmt(ly), esc(label))
}

func (r *renderer) secOr(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return r.sec(t)
}

func (r *renderer) mark(b *bytes.Buffer, l *Lane, mk Mark, mid float64, rs *rows) {
	x := r.x(mk.Time)
	cls := "mark mark-" + mk.Kind
	if mk.Failed {
		cls += " failed"
	}
	fmt.Fprintf(b, `<g class="%s" data-t="%s" data-label="%s"`, cls, r.sec(mk.Time), esc(mk.Label))
	if !mk.End.IsZero() {
		fmt.Fprintf(b, ` data-end-t="%s"`, r.sec(mk.End))
	}
	fmt.Fprintf(b, "><title>%s</title>", esc(mk.Detail))
	top := mid - barH/2
	switch mk.Kind {
	case MarkSignal:
		fmt.Fprintf(b, `<path d="M%s %sh10l-5 8z"/>`, ffmt(x-5), ffmt(top-8))
	case MarkProbe, MarkNote:
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3"/>`, ffmt(x), ffmt(mid))
	case MarkHook, MarkNotifier:
		if mk.End.IsZero() {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3"/>`, ffmt(x), ffmt(top-3))
		} else {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="4"/>`, ffmt(x), ffmt(top-5), ffmt(math.Max(r.x(mk.End)-x, 2)))
		}
	case MarkPolicy:
		fmt.Fprintf(b, `<path d="M%s %sl5 6l-5 6l-5-6z"/>`, ffmt(x), ffmt(top))
	case MarkRestart:
		// The back-off: from the decision to the next instance's creation.
		next := time.Time{}
		for _, bar := range l.Bars {
			if t := bar.begin(); !t.Before(mk.Time) {
				next = t
				break
			}
		}
		if !next.IsZero() {
			fmt.Fprintf(b, `<line class="backoff" x1="%s" y1="%s" x2="%s" y2="%s"/>`, ffmt(x), ffmt(mid), ffmt(r.x(next)), ffmt(mid))
		}
		fmt.Fprintf(b, `<path d="M%s %sa4 4 0 1 1 4 4"/>`, ffmt(x-4), ffmt(mid))
	case MarkSkip:
		fmt.Fprintf(b, `<path d="M%s %sl8 8m0 -8l-8 8"/>`, ffmt(x-4), ffmt(mid-4))
	}
	label := short(mk.Label)
	w := textW(label)
	prefer := []int{rowAbove, rowBelow, rowMiddle}
	if mk.Kind == MarkSkip || mk.Kind == MarkRestart {
		prefer = []int{rowMiddle, rowBelow, rowAbove}
	}
	lx := clampLabel(x-2, w)
	row := rs.place(lx, lx+w, prefer...)
	if row < 0 && mk.Kind != MarkNote {
		row = rs.must(lx, lx+w, prefer...)
	}
	if row < 0 { // a note without room: the tooltip has it
		b.WriteString("</g>")
		return
	}
	ly := mid - barH/2 - 10
	switch row {
	case rowMiddle:
		ly = mid + 3.5
	case rowBelow:
		ly = mid + barH/2 + 11
	}
	if row == rowMiddle {
		lx = clampLabel(x+8, w)
	}
	fmt.Fprintf(b, `<text x="%s" y="%s">%s</text></g>`, ffmt(lx), ffmt(ly), esc(label))
}
