package validator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/manifest"
)

const validPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: %s
spec:
  containers:
    - name: app
      image: oci:images/busybox:latest
`

const invalidPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: Bad_%s
spec:
  containers:
    - name: app
      image: oci:images/busybox:latest
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type collected struct {
	results []*Result
	sum     Summary
	err     error
}

func run(t *testing.T, o Options, paths []string, stdin string) collected {
	t.Helper()
	v, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var c collected
	c.sum, c.err = v.Run(context.Background(), paths, strings.NewReader(stdin), func(r *Result) error {
		c.results = append(c.results, r)
		return nil
	})
	return c
}

func files(rs []*Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s#%d", filepath.Base(r.File), r.Document))
	}
	return out
}

func TestRunEmitsResultsInSourceOrderWhateverTheWorkers(t *testing.T) {
	dir := t.TempDir()
	fs := map[string]string{}
	var want []string
	for i := range 60 {
		name := fmt.Sprintf("p%03d.yaml", i)
		if i%7 == 0 {
			fs[name] = fmt.Sprintf(invalidPod, "x") + "---\n" + fmt.Sprintf(validPod, "second")
			want = append(want, name+"#0", name+"#1")
		} else {
			fs[name] = fmt.Sprintf(validPod, fmt.Sprintf("pod-%d", i))
			want = append(want, name+"#0")
		}
	}
	fs["notes.txt"] = "not a manifest"
	fs[".hidden/p.yaml"] = "broken: ["
	fs["images/app/oci-layout"] = `{"imageLayoutVersion": "1.0.0"}`
	fs["images/app/index.json"] = `{"schemaVersion": 2, "manifests": []}`
	writeFiles(t, dir, fs)
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			c := run(t, Options{Workers: workers}, []string{dir}, "")
			if c.err != nil {
				t.Fatalf("Run: %v", c.err)
			}
			if got := files(c.results); !slices.Equal(got, want) {
				t.Errorf("order:\n got %v\nwant %v", got, want)
			}
			if c.sum.Files != 60 || c.sum.Documents != 69 || c.sum.Errors != 9 {
				t.Errorf("summary %+v, want 60 files, 69 documents, 9 errors", c.sum)
			}
		})
	}
}

func TestRunValidatesTheDocumentsOfOneStreamInParallelAndInOrder(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		if i > 0 {
			b.WriteString("---\n")
		}
		if i%10 == 3 {
			fmt.Fprintf(&b, invalidPod, "x")
		} else {
			fmt.Fprintf(&b, validPod, fmt.Sprintf("pod-%d", i))
		}
	}
	c := run(t, Options{Workers: 4}, []string{"-"}, b.String())
	if c.err != nil || len(c.results) != 200 || c.sum.Files != 1 || c.sum.Documents != 200 || c.sum.Errors != 20 {
		t.Fatalf("%d results, summary %+v, %v", len(c.results), c.sum, c.err)
	}
	for i, r := range c.results {
		if r.Document != i {
			t.Fatalf("result %d is document %d", i, r.Document)
		}
	}
	if f := c.results[13].Findings[0]; f.Rule != "ID-001" || f.Pos.Line != 13*9+4 || f.Pos.Column != 9 {
		t.Errorf("document 13's finding %+v", f)
	}
}

func TestRunFailFastStopsAfterTheFirstFailingFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a.yaml": fmt.Sprintf(validPod, "a"),
		"b.yaml": fmt.Sprintf(invalidPod, "b"),
		"c.yaml": fmt.Sprintf(invalidPod, "c"),
		"d.yaml": fmt.Sprintf(validPod, "d"),
	})
	c := run(t, Options{FailFast: true, Workers: 2}, []string{dir}, "")
	if got := files(c.results); !slices.Equal(got, []string{"a.yaml#0", "b.yaml#0"}) {
		t.Errorf("fail-fast emitted %v", got)
	}
	all := run(t, Options{Workers: 2}, []string{dir}, "")
	if all.sum.Errors != 2 || all.sum.Files != 4 {
		t.Errorf("without fail-fast every file must be reported: %+v", all.sum)
	}
}

func TestRunReportsUnreadablePathsAndGoesOn(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ok.yaml": fmt.Sprintf(validPod, "ok")})
	c := run(t, Options{}, []string{filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "ok.yaml")}, "")
	if c.err == nil || !errors.Is(c.err, os.ErrNotExist) {
		t.Errorf("error %v, want a not-exist error", c.err)
	}
	if len(c.results) != 1 || c.sum.Files != 1 {
		t.Errorf("the readable file must still be validated: %v %+v", files(c.results), c.sum)
	}
}

func TestRunReadsStandardInput(t *testing.T) {
	c := run(t, Options{}, []string{"-"}, fmt.Sprintf(validPod, "a")+"---\n"+fmt.Sprintf(invalidPod, "b"))
	if c.err != nil || len(c.results) != 2 || c.results[0].File != StdinName || c.sum.Errors != 1 {
		t.Errorf("stdin: %v %+v %v", files(c.results), c.sum, c.err)
	}
	if f := c.results[1].Findings[0]; f.Rule != "ID-001" || f.Pos.Line != 13 || f.Pos.Column != 9 {
		t.Errorf("finding in the second document: %+v (lines count from the start of the stream)", f)
	}
}

func TestRunRefusesFilesOverTheSizeLimitWithoutReadingThem(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.yaml": fmt.Sprintf(validPod, "big")})
	lim := manifest.DefaultLimits()
	lim.MaxBytes = 16
	c := run(t, Options{Limits: lim}, []string{dir}, "")
	if len(c.results) != 1 || len(c.results[0].Findings) != 1 {
		t.Fatalf("results %v", c.results)
	}
	f := c.results[0].Findings[0]
	if f.Rule != "MAN-007" || f.Pos.Line != 0 || c.sum.Documents != 0 || c.sum.Errors != 1 {
		t.Errorf("finding %+v summary %+v", f, c.sum)
	}
}

func TestInputsOfUnknownSizeAreReadOnlyUpToTheLimit(t *testing.T) {
	lim := manifest.DefaultLimits()
	lim.MaxBytes = 1 << 20
	for _, tc := range []struct {
		name  string
		paths []string
		stdin string
	}{
		{"a device that never ends", []string{"/dev/zero"}, ""},
		{"standard input", []string{"-"}, strings.Repeat("#", 1<<20+1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := run(t, Options{Limits: lim}, tc.paths, tc.stdin)
			if c.err != nil || len(c.results) != 1 || len(c.results[0].Findings) != 1 {
				t.Fatalf("results %v error %v", c.results, c.err)
			}
			f := c.results[0].Findings[0]
			want := "more than 1048576 bytes, the limit: the input is not a regular file of known size and was read no further"
			if f.Rule != "MAN-007" || f.Message != want {
				t.Errorf("finding %s %q, want MAN-007 %q (no made-up size)", f.Rule, f.Message, want)
			}
		})
	}
	var big *TooLargeError
	if _, err := ReadFile("/dev/zero", 4096); !errors.As(err, &big) || big.Size != -1 {
		t.Errorf("ReadFile(/dev/zero) = %v, want a TooLargeError of unknown size", err)
	}
}

// TestALongStreamOverTheLimitIsReportedUpToWhereItCrossedIt: standard input over streamAbove is
// validated one document at a time, so the documents read before --max-bytes was crossed are
// reported, and then MAN-007 at the document that crossed it (docs/validate.md, Limits).
func TestALongStreamOverTheLimitIsReportedUpToWhereItCrossedIt(t *testing.T) {
	var in strings.Builder
	for i := 0; in.Len() <= 2*streamAbove; i++ {
		fmt.Fprintf(&in, "---\n"+validPod, fmt.Sprintf("p%d", i))
	}
	lim := manifest.DefaultLimits()
	lim.MaxBytes = streamAbove + streamAbove/2
	lim.MaxDocuments = 1 << 20 // the byte limit, not the document limit, is under test
	c := run(t, Options{Limits: lim}, []string{"-"}, in.String())
	if c.err != nil || len(c.results) < 2 {
		t.Fatalf("%d results, error %v", len(c.results), c.err)
	}
	for _, r := range c.results[:len(c.results)-1] {
		if len(r.Findings) != 0 {
			t.Fatalf("document %d before the limit: findings %v", r.Document, r.Findings)
		}
	}
	last := c.results[len(c.results)-1]
	if len(last.Findings) != 1 || last.Findings[0].Rule != "MAN-007" || last.Findings[0].Pos.Line <= 1 {
		t.Fatalf("the last result: %+v, want one MAN-007 where the limit was crossed", last.Findings)
	}
	// Every document that ends within the limit was read (and the one that crosses it counted),
	// none after it.
	want, end := 0, 0
	for _, doc := range strings.SplitAfter(in.String(), "---\n")[1:] {
		if end += len(doc); end > int(lim.MaxBytes) {
			break
		}
		want++
	}
	if c.sum.Documents != want && c.sum.Documents != want+1 {
		t.Errorf("%d documents read, want the %d that end within the limit of %d bytes (and the one that crosses it)", c.sum.Documents, want, lim.MaxBytes)
	}
	if c.sum.Errors != 1 {
		t.Errorf("%d errors, want the one MAN-007", c.sum.Errors)
	}
}

func TestNewRejectsNegativeWorkers(t *testing.T) {
	if _, err := New(Options{Workers: -1}); err == nil {
		t.Error("New accepted Workers -1")
	}
}

func TestRunStopsWhenEmitFails(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.yaml": fmt.Sprintf(validPod, "a"), "b.yaml": fmt.Sprintf(validPod, "b")})
	v, _ := New(Options{})
	boom := errors.New("disk full")
	n := 0
	_, err := v.Run(context.Background(), []string{dir}, nil, func(*Result) error { n++; return boom })
	if !errors.Is(err, boom) || n != 1 {
		t.Errorf("err %v after %d emits", err, n)
	}
}

func TestSuppression(t *testing.T) {
	base := `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata:
  name: Bad_Name
  annotations:
%s
spec:
  containers: [{name: app, image: "oci:x"}]
`
	cases := []struct {
		name        string
		annotations string
		suppressed  bool
		reason      string
		warning     bool
	}{
		{"a listed rule with a reason is suppressed", `    podspec.dev/ignore: "EXIT-001, ID-001"
    podspec.dev/ignore-reason: legacy name`, true, "legacy name", false},
		{"a listed rule without a reason is suppressed with a MAN-009 warning", `    podspec.dev/ignore: ID-001`, true, "", true},
		{"an unlisted rule is not suppressed", `    podspec.dev/ignore: EXIT-001
    podspec.dev/ignore-reason: x`, false, "", false},
	}
	v, _ := New(Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := v.Bytes("f.yaml", []byte(fmt.Sprintf(base, tc.annotations)))
			var id, warn *finding.Finding
			for i, f := range rs[0].Findings {
				switch f.Rule {
				case "ID-001":
					id = &rs[0].Findings[i]
				case "MAN-009":
					warn = &rs[0].Findings[i]
				}
			}
			if id == nil {
				t.Fatalf("no ID-001 finding: %v", rs[0].Findings)
			}
			if id.Suppressed != tc.suppressed || id.SuppressedReason != tc.reason {
				t.Errorf("ID-001 suppressed=%v reason=%q", id.Suppressed, id.SuppressedReason)
			}
			if (warn != nil) != tc.warning {
				t.Errorf("MAN-009 warning %v, want %v", warn, tc.warning)
			}
			if warn != nil && (warn.Pos.Line != 6 || warn.Pos.Column != 5 || warn.Severity != finding.Warning) {
				t.Errorf("MAN-009 at %+v", warn)
			}
		})
	}
}

func TestDedupeKeepsOneFindingPerPositionAndRule(t *testing.T) {
	at := func(rule string, line, col int, msg string) finding.Finding {
		return finding.Finding{Rule: rule, Message: msg, Pos: finding.Position{File: "f", Line: line, Column: col}}
	}
	in := []finding.Finding{
		at("MAN-002", 3, 4, "from schema"), at("MAN-002", 3, 4, "from semantic"), at("ID-001", 3, 4, "x"),
		at("MAN-007", 0, 0, "size"), at("MAN-007", 0, 0, "size"), at("MAN-007", 0, 0, "documents"),
	}
	out := dedupe(in)
	if len(out) != 4 || out[0].Message != "from schema" {
		t.Errorf("dedupe kept %v", out)
	}
}

func TestNewRejectsUnknownEngines(t *testing.T) {
	if _, err := New(Options{Engines: []string{"semantic", "magic"}}); err == nil {
		t.Errorf("New accepted an unknown engine")
	}
	if _, err := New(Options{Engines: AvailableEngines()}); err != nil {
		t.Errorf("New refused the available engines: %v", err)
	}
}

func TestUpdate(t *testing.T) {
	dir := t.TempDir()
	old := fmt.Sprintf(validPod, "web")
	writeFiles(t, dir, map[string]string{
		"old.yaml":     old,
		"image.yaml":   strings.Replace(old, "busybox:latest", "busybox:1.36", 1),
		"renamed.yaml": strings.Replace(old, "name: web", "name: web2", 1),
		"broken.yaml":  "kind: [",
		"nopod.yaml":   "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: n}\nspec: {notifier: x, pods: [a]}\n",
	})
	v, _ := New(Options{})
	p := func(n string) string { return filepath.Join(dir, n) }

	rs, err := v.Update(p("old.yaml"), p("image.yaml"))
	if err != nil || len(rs) != 1 || len(rs[0].Findings) != 0 {
		t.Errorf("changing the image is a legal update: %v %v", rs, err)
	}
	rs, err = v.Update(p("old.yaml"), p("renamed.yaml"))
	if err != nil || len(rs) != 1 || len(rs[0].Findings) != 1 {
		t.Fatalf("renaming: %v %v", rs, err)
	}
	if f := rs[0].Findings[0]; f.Rule != "UPD-001" || f.Pos.Line != 4 || f.Pos.Column != 9 || f.Engine != engineUpdate {
		t.Errorf("renaming must be an UPD-001 at the new name: %+v", f)
	}
	for _, bad := range []string{"broken.yaml", "nopod.yaml"} {
		if _, err := v.Update(p(bad), p("image.yaml")); !errors.Is(err, ErrInvalidOld) {
			t.Errorf("old %s: error %v, want ErrInvalidOld", bad, err)
		}
	}
	if _, err := v.Update(p("missing.yaml"), p("image.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing old file must be an I/O error, got %v", err)
	}
}

// --exclude leaves out what a directory holds that is no manifest: a pattern without '/' by
// name (a file, or a directory and all under it), one with '/' by path under the directory;
// a file named explicitly is read whatever the patterns; a bad pattern is refused up front.
func TestRunExcludesByNameAndByRelativePath(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "base"), 0o755)
	os.MkdirAll(filepath.Join(dir, "charts", "web"), 0o755)
	writeFiles(t, dir, map[string]string{
		"pod.yaml":                fmt.Sprintf(validPod, "a"),
		"base/kustomization.yaml": "resources: [../pod.yaml]\n",
		"base/patch.yaml":         "spec: {}\n",
		"charts/web/Chart.yaml":   "name: web\n",
	})
	cases := []struct {
		exclude []string
		want    []string
	}{
		{nil, []string{"base/kustomization.yaml", "base/patch.yaml", "charts/web/Chart.yaml", "pod.yaml"}},
		{[]string{"kustomization.yaml", "charts"}, []string{"base/patch.yaml", "pod.yaml"}},
		{[]string{"base/*.yaml", "Chart.yaml"}, []string{"pod.yaml"}},
	}
	for _, c := range cases {
		r := run(t, Options{Exclude: c.exclude}, []string{dir}, "")
		var got []string
		for _, res := range r.results {
			rel, _ := filepath.Rel(dir, res.File)
			got = append(got, filepath.ToSlash(rel))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("exclude %q: read %v, want %v", c.exclude, got, c.want)
		}
	}
	if r := run(t, Options{Exclude: []string{"*.yaml"}}, []string{filepath.Join(dir, "pod.yaml")}, ""); len(r.results) != 1 {
		t.Errorf("a file named explicitly was excluded: %v", files(r.results))
	}
	if _, err := New(Options{Exclude: []string{"["}}); err == nil {
		t.Error("a malformed pattern was accepted")
	}
}

// A document without an apiVersion is told what to write in the terms of its kind's API: a
// Kubernetes Deployment apps/v1 (and no complaint about its kind), a Pod either API's.
func TestAMissingAPIVersionIsExplainedForTheKind(t *testing.T) {
	v, _ := New(Options{})
	for kind, want := range map[string]string{
		"Deployment":   "apiVersion is required: a Kubernetes Deployment is apiVersion apps/v1",
		"Pod":          "apiVersion is required: v1 for a Kubernetes Pod, podspec.dev/v1alpha1 for a podspec Pod",
		"CronJob":      "apiVersion is required: a Kubernetes CronJob is apiVersion batch/v1",
		"PodList":      "apiVersion is required: a Kubernetes PodList is apiVersion v1",
		"Notification": "apiVersion is required (podspec.dev/v1alpha1)",
	} {
		rs := v.Bytes("x.yaml", []byte("kind: "+kind+"\nmetadata: {name: x}\n"))
		if len(rs) != 1 || len(rs[0].Findings) != 1 || rs[0].Findings[0].Message != want {
			t.Errorf("kind %s: %+v, want only %q", kind, rs[0].Findings, want)
		}
	}
}
