// Package chromium renders pages in a real headless Chromium for tests: Inspect loads a page
// with a measuring script appended (the page itself stays as it is on disk), lets the script
// read the laid-out DOM — positions, sizes, what was loaded — and returns what it found, with
// every console message the page produced; Screenshot saves a picture of a page.
//
// It drives the browser through its command line (--headless --dump-dom, --screenshot) rather
// than the DevTools protocol: no library, and the same flags work in CI. It is for tests only;
// no binary links it.
package chromium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Binary finds the browser: $CHROMIUM, then chromium or chromium-browser on $PATH. It returns
// "" when there is none.
func Binary() string {
	if b := os.Getenv("CHROMIUM"); b != "" {
		return b
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Need skips the test when there is no browser, or fails it when $PODSPEC_REQUIRE_BROWSER is
// set (scripts/test.sh sets it: CI has installed chromium, and a test that silently skipped
// there would prove nothing).
func Need(t testing.TB) {
	t.Helper()
	if Binary() != "" {
		return
	}
	if os.Getenv("PODSPEC_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium on PATH, and PODSPEC_REQUIRE_BROWSER is set (scripts/install-deps.sh --browser installs it)")
	}
	t.Skip("no chromium on PATH (scripts/install-deps.sh --browser installs it)")
}

// flags make a headless run that touches nothing outside its own profile and reaches no network
// service of its own (updates, sync, QUIC probes).
var flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"}

// Window is the browser's window: its size and the colour scheme the page is told the reader
// prefers.
type Window struct {
	Width, Height int
	Dark          bool
}

func (w Window) args() []string {
	a := []string{fmt.Sprintf("--window-size=%d,%d", w.Width, w.Height)}
	if w.Dark {
		a = append(a, "--blink-settings=preferredColorScheme=0") // 0 is dark
	}
	return a
}

// Result is what Inspect found.
type Result struct {
	// JSON is what the measuring script wrote (its JSON.stringify of whatever it measured).
	JSON string
	// Console holds every console message of the page (errors, warnings, logs) as Chromium
	// logged it. A page without scripts has none unless something went wrong.
	Console []string
	// DOM is the serialized document after the script ran.
	DOM string
}

// resultID is the element the measuring script's output goes into.
const resultID = "chromium-inspect-result"

var consoleLine = regexp.MustCompile(`:CONSOLE[:(]`)

// Inspect copies the HTML page to a temporary directory with script appended (inside a
// <script> element at the end of the document), loads it, and returns the value the script
// returns: script is the body of a function whose return value is serialized with JSON.stringify.
// The window sets the layout and colour scheme the reader has.
func Inspect(ctx context.Context, page []byte, script string, win Window) (*Result, error) {
	bin := Binary()
	if bin == "" {
		return nil, errors.New("no chromium on PATH (set $CHROMIUM)")
	}
	dir, err := os.MkdirTemp("", "chromium-inspect-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	probe := fmt.Sprintf(`<script>(function(){var out;try{out=JSON.stringify((function(){%s})())}catch(e){out=JSON.stringify({error:String(e&&e.stack||e)})}var p=document.createElement("pre");p.id=%q;p.textContent=out;document.body.appendChild(p)})();</script>`, script, resultID)
	doc := append(append([]byte{}, page...), probe...)
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		return nil, err
	}
	out, stderr, err := runBrowser(ctx, bin, dir, append(win.args(), "--dump-dom", "file://"+file)...)
	if err != nil {
		return nil, err
	}
	r := &Result{DOM: out, Console: consoleMessages(stderr)}
	m := regexp.MustCompile(`(?s)<pre id="` + resultID + `">(.*?)</pre>`).FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("the measuring script left no result; console: %v", r.Console)
	}
	r.JSON = html.UnescapeString(m[1])
	return r, nil
}

// Measure is Inspect for a test: it fails the test when the browser cannot run the page, marks
// it failed for every console message, and decodes the script's result into v.
func Measure(t testing.TB, page []byte, script string, win Window, v any) {
	t.Helper()
	r, err := Inspect(context.Background(), page, script, win)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(r.Console, "\n"))
	}
	if err := json.Unmarshal([]byte(r.JSON), v); err != nil {
		t.Fatalf("measurement %s: %v", r.JSON, err)
	}
}

// Screenshot saves a PNG of the page file (HTML or SVG) as the window shows it.
func Screenshot(ctx context.Context, pageFile, png string, win Window) error {
	bin := Binary()
	if bin == "" {
		return errors.New("no chromium on PATH (set $CHROMIUM)")
	}
	abs, err := filepath.Abs(pageFile)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "chromium-shot-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, _, err := runBrowser(ctx, bin, dir, append(win.args(), "--screenshot="+out, "file://"+abs)...); err != nil {
		return err
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("chromium wrote no screenshot: %w", err)
	}
	return nil
}

// runBrowser runs one headless browser with a fresh profile in dir and returns its stdout and
// stderr. The browser and every process it started are gone when it returns.
func runBrowser(ctx context.Context, bin, dir string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	profile := filepath.Join(dir, "profile")
	all := append(append(append([]string{}, flags...), "--user-data-dir="+profile, "--crash-dumps-dir="+filepath.Join(dir, "crashes")), args...)
	cmd := exec.CommandContext(ctx, bin, all...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", "", fmt.Errorf("%s: %v\n%s", bin, err, tail(errb.String(), 2000))
	}
	return out.String(), errb.String(), nil
}

// consoleMessages picks the console lines out of Chromium's log.
func consoleMessages(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if consoleLine.MatchString(line) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
