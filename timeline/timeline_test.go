package timeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// The events files in testdata are recorded from real runs on the reference runtime
// (testdata/record.sh); each test draws one and checks the picture against the events.

func loadEvents(t testing.TB, name string) []runtimev1.Event {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []runtimev1.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev runtimev1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// node is an element of a parsed picture.
type node struct {
	Name     string
	Attr     map[string]string
	Text     string
	Children []*node
}

func (n *node) class() []string { return strings.Fields(n.Attr["class"]) }

func (n *node) hasClass(c string) bool {
	for _, x := range n.class() {
		if x == c {
			return true
		}
	}
	return false
}

// all returns the descendants (and n itself) with class c, in document order.
func (n *node) all(c string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.hasClass(c) {
			out = append(out, m)
		}
		for _, ch := range m.Children {
			walk(ch)
		}
	}
	walk(n)
	return out
}

func (n *node) num(t testing.TB, attr string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(n.Attr[attr], 64)
	if err != nil {
		t.Fatalf("%s=%q of <%s class=%q>: %v", attr, n.Attr[attr], n.Name, n.Attr["class"], err)
	}
	return f
}

// allowedElements is everything a picture may contain: no script, no foreignObject, no image,
// no links.
var allowedElements = map[string]bool{"svg": true, "title": true, "style": true, "rect": true, "text": true, "g": true, "line": true, "path": true, "circle": true}

// parse checks that the picture is well-formed XML made only of allowedElements, with no
// reference to anything outside it, and returns its tree.
func parse(t testing.TB, svg []byte) *node {
	t.Helper()
	if bytes.Contains(bytes.ToLower(svg), []byte("<script")) {
		t.Error("picture contains a script")
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("picture is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if !allowedElements[tok.Name.Local] {
				t.Errorf("picture contains a <%s> element", tok.Name.Local)
			}
			n := &node{Name: tok.Name.Local, Attr: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attr[a.Name.Local] = a.Value
				if l := strings.ToLower(a.Name.Local); strings.HasPrefix(l, "on") || l == "href" || l == "style" || l == "src" {
					t.Errorf("<%s> has an attribute %s", n.Name, a.Name.Local)
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root == nil {
				root = n
			} else {
				t.Fatal("picture has two root elements")
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(tok)
			}
		case xml.Comment:
			t.Error("picture contains a comment")
		case xml.ProcInst, xml.Directive:
			t.Errorf("picture contains %T", tok)
		}
	}
	if root == nil || root.Name != "svg" {
		t.Fatal("picture has no <svg> root")
	}
	return root
}

// draw builds and renders events, returning the model and the parsed picture.
func draw(t testing.TB, evs []runtimev1.Event, opt Options) (*Model, *node) {
	t.Helper()
	m := Build(evs, opt)
	return m, parse(t, SVG(m))
}

// lanes returns the drawn lanes as container/kind, top to bottom.
func lanes(t testing.TB, root *node) []string {
	var out []string
	last := -1.0
	for _, l := range root.all("lane") {
		out = append(out, l.Attr["data-container"]+"/"+l.Attr["data-kind"])
		// Lanes are drawn top to bottom in their order: the name's y grows.
		for _, ch := range l.Children {
			if ch.hasClass("name") {
				y := ch.num(t, "y")
				if y <= last {
					t.Errorf("lane %s drawn above the one before it", l.Attr["data-container"])
				}
				last = y
			}
		}
	}
	return out
}

// wantLanes checks the lanes drawn, top to bottom, as "container/kind ...".
func wantLanes(t testing.TB, root *node, want string) {
	t.Helper()
	if got := strings.Join(lanes(t, root), " "); got != want {
		t.Errorf("lanes %s, want %s", got, want)
	}
}

func lane(t testing.TB, root *node, container string) *node {
	t.Helper()
	for _, l := range root.all("lane") {
		if l.Attr["data-container"] == container {
			return l
		}
	}
	t.Fatalf("no lane for %s", container)
	return nil
}

// marks returns the labels of a lane's marks of one kind.
func marks(l *node, kind string) []*node { return l.all("mark-" + kind) }

// at is the offset of an event from the first, in seconds.
func at(evs []runtimev1.Event, ev runtimev1.Event) float64 { return ev.Time.Sub(evs[0].Time).Seconds() }

func find(t testing.TB, evs []runtimev1.Event, typ runtimev1.EventType, container string, nth int) runtimev1.Event {
	t.Helper()
	for _, ev := range evs {
		if ev.Type == typ && (container == "" || ev.Container == container) {
			if nth == 0 {
				return ev
			}
			nth--
		}
	}
	t.Fatalf("no %s of %q in the events", typ, container)
	return runtimev1.Event{}
}

func near(a, b float64) bool { return a-b < 0.0015 && b-a < 0.0015 }

func TestTheDemoPodShowsEveryContainerInStartOrderAndTheStopByThePolicy(t *testing.T) {
	evs := loadEvents(t, "demo")
	grace := 10 * time.Second
	m, root := draw(t, evs, Options{Grace: &grace})
	wantLanes(t, root, "prepare/init shipper/sidecar db/main worker/main")
	for _, c := range []string{"prepare", "shipper", "db", "worker"} {
		bars := lane(t, root, c).all("bar")
		if len(bars) != 1 {
			t.Fatalf("%s: %d bars, want 1", c, len(bars))
		}
		ex := find(t, evs, "ContainerExited", c, 0)
		if !near(bars[0].num(t, "data-to"), at(evs, ex)) || bars[0].Attr["data-end"] != "exit 0" {
			t.Errorf("%s's bar ends at %s with %q, want %.3f exit 0", c, bars[0].Attr["data-to"], bars[0].Attr["data-end"], at(evs, ex))
		}
		cr := find(t, evs, "ContainerCreated", c, 0)
		if !near(bars[0].num(t, "data-from"), at(evs, cr)) {
			t.Errorf("%s's bar begins at %s, want its creation %.3f", c, bars[0].Attr["data-from"], at(evs, cr))
		}
	}
	// The sidecar and db got their stop signal (SIGTERM), marked where it was sent.
	for _, c := range []string{"shipper", "db"} {
		sig := marks(lane(t, root, c), "signal")
		ev := find(t, evs, "SignalSent", c, 0)
		if len(sig) != 1 || sig[0].Attr["data-label"] != "SIGTERM" || !near(sig[0].num(t, "data-t"), at(evs, ev)) {
			t.Errorf("%s: signal marks %v, want SIGTERM at %.3f", c, sig, at(evs, ev))
		}
	}
	if p := marks(lane(t, root, "shipper"), "probe"); len(p) != 1 || p[0].Attr["data-label"] != "startup ok" {
		t.Errorf("shipper's probe marks: %v", p)
	}
	if p := marks(lane(t, root, "worker"), "policy"); len(p) != 1 || p[0].Attr["data-label"] != "policy Any" {
		t.Errorf("worker's policy marks: %v", p)
	}
	// The policy began the stop sequence: the budget is the pod's grace period from there.
	b := root.all("budget-span")
	term := find(t, evs, "PodTerminating", "", 0)
	if len(b) != 1 || !near(b[0].num(t, "data-from"), at(evs, term)) || !near(b[0].num(t, "data-to"), at(evs, term)+10) {
		t.Fatalf("budget spans %v, want one from %.3f to %.3f", b, at(evs, term), at(evs, term)+10)
	}
	if !m.Finished {
		t.Error("PodFinished not seen")
	}
}

func TestRestartsAreNewBarsOnTheSameLaneWithTheirBackOff(t *testing.T) {
	evs := loadEvents(t, "restarts")
	_, root := draw(t, evs, Options{})
	wantLanes(t, root, "proxy/sidecar flaky/main")
	l := lane(t, root, "flaky")
	bars := l.all("bar")
	var ends []string
	for i, b := range bars {
		ends = append(ends, b.Attr["data-end"])
		if b.Attr["data-restart"] != strconv.Itoa(i) {
			t.Errorf("bar %d has restartCount %s", i, b.Attr["data-restart"])
		}
		if i > 0 && b.num(t, "data-from") <= bars[i-1].num(t, "data-to") {
			t.Errorf("bar %d begins before bar %d ended", i, i-1)
		}
	}
	if got := strings.Join(ends, ","); got != "exit 1,exit 1,exit 0" {
		t.Errorf("ends %s, want exit 1,exit 1,exit 0", got)
	}
	rs := marks(l, "restart")
	if len(rs) != 2 {
		t.Fatalf("%d restart marks, want 2", len(rs))
	}
	for i, r := range rs {
		ev := find(t, evs, "ContainerRestarting", "flaky", i)
		want := "restart in " + strings.TrimPrefix(ev.Message, "back-off ")
		if r.Attr["data-label"] != want || !near(r.num(t, "data-t"), at(evs, ev)) {
			t.Errorf("restart mark %d: %q at %s, want %q at %.3f", i, r.Attr["data-label"], r.Attr["data-t"], want, at(evs, ev))
		}
		// The back-off line runs from the decision to the next instance.
		if len(r.all("backoff")) != 1 {
			t.Errorf("restart mark %d has no back-off line", i)
		}
	}
}

func TestAStubbornContainerIsKilledWhereTheBudgetEnds(t *testing.T) {
	evs := loadEvents(t, "stubborn")
	_, root := draw(t, evs, Options{})
	stop := find(t, evs, "StopRequested", "", 0)
	b := root.all("budget-span")
	if len(b) != 1 {
		t.Fatalf("%d budget spans, want 1", len(b))
	}
	from, to := b[0].num(t, "data-from"), b[0].num(t, "data-to")
	if !near(from, at(evs, stop)) || !near(to, at(evs, stop)+float64(*stop.GracePeriodSeconds)) || b[0].Attr["data-clipped"] != "false" {
		t.Errorf("budget %.3f-%.3f (clipped %s), want the stop request %.3f + %ds", from, to, b[0].Attr["data-clipped"], at(evs, stop), *stop.GracePeriodSeconds)
	}
	l := lane(t, root, "stubborn")
	var sigs []string
	for _, s := range marks(l, "signal") {
		sigs = append(sigs, s.Attr["data-label"])
	}
	if strings.Join(sigs, ",") != "SIGTERM,SIGKILL" {
		t.Errorf("stubborn's signals %v, want SIGTERM,SIGKILL", sigs)
	}
	kill := marks(l, "signal")[1].num(t, "data-t")
	if kill < to-0.05 || kill > to+1 {
		t.Errorf("SIGKILL at %.3f, the budget ends at %.3f", kill, to)
	}
	if bars := l.all("bar"); len(bars) != 1 || bars[0].Attr["data-end"] != "SIGKILL" {
		t.Errorf("stubborn's bar ends %v, want SIGKILL", bars)
	}
	// The x of the deadline line is where the axis puts the deadline.
	x0, x1, span := root.num(t, "data-x0"), root.num(t, "data-x1"), root.num(t, "data-span")
	for _, ch := range b[0].Children {
		if ch.hasClass("deadline") {
			if want := x0 + to/span*(x1-x0); ch.num(t, "x1") < want-0.5 || ch.num(t, "x1") > want+0.5 {
				t.Errorf("deadline drawn at x=%s, want %.3f", ch.Attr["x1"], want)
			}
		}
	}
	polite := lane(t, root, "polite")
	hooks := marks(polite, "hook")
	if len(hooks) != 1 || hooks[0].Attr["data-label"] != "preStop succeeded" || hooks[0].Attr["data-end-t"] == "" {
		t.Errorf("polite's hooks %v, want one preStop span that succeeded", hooks)
	}
	if bars := polite.all("bar"); len(bars) != 1 || bars[0].Attr["data-end"] != "exit 0" {
		t.Errorf("polite's bar ends %v, want exit 0", bars)
	}
	if len(root.all("stopline")) < 2 { // the legend's and the request's
		t.Error("no stop request line")
	}
}

func TestDefersFollowTheMainContainersInTheirOrderWithTheirRetries(t *testing.T) {
	evs := loadEvents(t, "defers")
	_, root := draw(t, evs, Options{})
	wantLanes(t, root, "work/main report/defer upload/defer cleanup/defer")
	up := lane(t, root, "upload").all("bar")
	if len(up) != 2 || up[0].Attr["data-end"] != "exit 4" || up[1].Attr["data-end"] != "exit 0" {
		t.Errorf("upload's bars %v, want exit 4 then its retry exit 0", up)
	}
	if len(marks(lane(t, root, "upload"), "restart")) != 1 {
		t.Error("upload's retry has no restart mark")
	}
}

func TestHostileEventTextCannotInjectMarkup(t *testing.T) {
	code := int32(1)
	hostile := []string{
		`<script>alert(1)</script>`,
		`"><foreignObject><body onload="x()"/></foreignObject><text a="`,
		"]]><!-- \x00\x1b[31m &amp; &#x3c; ' \"",
		`</style><style>@import url(http://evil.example/x.css);</style>`,
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []runtimev1.Event
	for i, h := range hostile {
		at := t0.Add(time.Duration(i) * time.Second)
		evs = append(evs,
			runtimev1.Event{Seq: int64(3*i + 1), Time: at, Type: "ContainerStarted", Pod: h, Container: h, ContainerKind: h, ContainerID: h},
			runtimev1.Event{Seq: int64(3*i + 2), Time: at.Add(100 * time.Millisecond), Type: "SignalSent", Container: h, ContainerID: h, Signal: &v1alpha1.Signal{Name: h}, Message: h},
			runtimev1.Event{Seq: int64(3*i + 3), Time: at.Add(200 * time.Millisecond), Type: "ContainerExited", Container: h, ContainerID: h, ExitCode: &code, Reason: h, Message: h},
		)
	}
	evs = append(evs, runtimev1.Event{Type: "PodFinished", Time: t0.Add(9 * time.Second), Reason: hostile[0], Phase: v1alpha1.PodPhase(hostile[1])})
	_, root := draw(t, evs, Options{Title: hostile[3], Notes: []Note{{Time: t0, Container: hostile[0], Text: hostile[1]}}})
	checkStyle(t, root)
	got := lanes(t, root)
	if len(got) != len(hostile) {
		t.Fatalf("%d lanes, want %d", len(got), len(hostile))
	}
	for i, h := range hostile {
		// The name comes back as it was, as character data (XML cannot hold NUL or ESC: those
		// become U+FFFD).
		want := strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
				return '\uFFFD'
			}
			return r
		}, h)
		if got := root.all("lane")[i].Attr["data-container"]; got != want {
			t.Errorf("lane %d is named %q, want %q", i, got, want)
		}
	}
	if n := len(root.Children[1:]); n == 0 {
		t.Fatal("empty picture")
	}
}

// The only style sheet is Style: no event text reaches CSS, and Style loads nothing.
func checkStyle(t *testing.T, root *node) {
	t.Helper()
	var styles int
	for _, ch := range root.Children {
		if ch.Name == "style" {
			styles++
			if ch.Text != Style {
				t.Error("the style sheet is not Style")
			}
		}
	}
	if styles != 1 {
		t.Errorf("%d style elements, want 1", styles)
	}
	for _, bad := range []string{"url(", "@import", "@font-face"} {
		if strings.Contains(Style, bad) {
			t.Errorf("Style contains %s", bad)
		}
	}
}

func TestEveryRecordedPodDrawsAWellFormedSelfContainedPicture(t *testing.T) {
	for _, name := range []string{"demo", "restarts", "stubborn", "defers"} {
		t.Run(name, func(t *testing.T) {
			_, root := draw(t, loadEvents(t, name), Options{})
			checkStyle(t, root)
			if root.Attr["viewBox"] == "" || !root.hasClass("podspec-timeline") {
				t.Errorf("root %v", root.Attr)
			}
		})
	}
}

func TestAnEmptyOrOddStreamStillDraws(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, evs := range map[string][]runtimev1.Event{
		"nothing":                 nil,
		"one event":               {{Seq: 1, Time: t0, Type: "PodCreated", Pod: "p"}},
		"an exit without a start": {{Seq: 1, Time: t0, Type: "ContainerExited", Container: "c"}},
		"unknown types":           {{Seq: 1, Time: t0, Type: "SomethingNew", Container: "c"}, {Seq: 2, Time: t0, Type: "HookFinished", Container: "c", Hook: "preStop", Result: "Timeout"}},
		"a running pod":           {{Seq: 1, Time: t0, Type: "ContainerStarted", Container: "c"}, {Seq: 2, Time: t0.Add(time.Second), Type: "StopRequested", GracePeriodSeconds: ptr(int64(30))}},
	} {
		t.Run(name, func(t *testing.T) { draw(t, evs, Options{}) })
	}
}

func ptr[T any](v T) *T { return &v }

func TestAShorterSecondStopRequestEndsTheBudgetEarlier(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evs := []runtimev1.Event{
		{Seq: 1, Time: t0, Type: "StopRequested", GracePeriodSeconds: ptr(int64(30))},
		{Seq: 2, Time: t0.Add(time.Second), Type: "StopRequested", GracePeriodSeconds: ptr(int64(60))},
		{Seq: 3, Time: t0.Add(2 * time.Second), Type: "StopRequested", GracePeriodSeconds: ptr(int64(3))},
		{Seq: 4, Time: t0.Add(3 * time.Second), Type: "StopRequested", Force: true},
	}
	m := Build(evs, Options{})
	var got []string
	for _, b := range m.Budgets {
		got = append(got, b.Deadline.Sub(t0).String())
	}
	if strings.Join(got, " ") != "30s 5s 3s" {
		t.Errorf("deadlines %v, want 30s 5s 3s", got)
	}
	// A grace period beyond time.Duration saturates: the deadline is far off, not in the past.
	m = Build([]runtimev1.Event{{Seq: 1, Time: t0, Type: "StopRequested", GracePeriodSeconds: ptr(int64(1) << 62)}}, Options{})
	if len(m.Budgets) != 1 || !m.Budgets[0].Deadline.After(t0.AddDate(200, 0, 0)) {
		t.Errorf("a huge grace period gives %+v", m.Budgets)
	}
}

func TestTheReferencesExtraEventTypesAreTheOnesDrawn(t *testing.T) {
	if evStartupSucceeded != store.EventStartupSucceeded || evContainerNotReady != store.EventContainerNotReady {
		t.Error("the reference runtime's extra event types changed: update timeline's names for them")
	}
}
