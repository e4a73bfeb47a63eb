package v1_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/spec"
)

// contractDoc returns docs/runtime-interface.md, the document this package types.
func contractDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/runtime-interface.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the text of the section whose heading starts with heading, up to the next
// heading of the same or a higher level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading)
	if i < 0 {
		t.Fatalf("no section %q in the contract", heading)
	}
	level := strings.Index(heading, " ")
	rest := doc[i+1+len(heading):]
	for _, l := range []string{"\n# ", "\n## ", "\n### "}[:level] {
		if j := strings.Index(rest, l); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}

// column returns the cells of column n of every row of the markdown tables in text (header and
// separator rows left out).
func column(text string, n int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if n < len(cells) {
			out = append(out, strings.TrimSpace(cells[n]))
		}
	}
	if len(out) > 0 {
		out = out[1:] // the header
	}
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// spans returns every `code span` of the cells.
func spans(cells []string) []string {
	var out []string
	for _, c := range cells {
		for _, m := range codeSpan.FindAllStringSubmatch(c, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

func TestTheContractVersionIsTheDocument(t *testing.T) {
	first, _, _ := strings.Cut(contractDoc(t), "\n")
	if want := "version " + runtimev1.ContractVersion; !strings.HasSuffix(first, want) {
		t.Fatalf("the contract's title %q does not end with %q", first, want)
	}
}

func TestExitStatusesAreSection3sTable(t *testing.T) {
	table := section(t, contractDoc(t), "## 3.")
	exits, codes := column(table, 0), column(table, 1)
	var got []runtimev1.ErrorCode
	for i, cell := range codes {
		c := spans([]string{cell})
		if len(c) == 0 {
			continue // success
		}
		code := runtimev1.ErrorCode(c[0])
		got = append(got, code)
		exit, err := strconv.Atoi(exits[i])
		if err != nil {
			t.Fatalf("exit cell %q: %v", exits[i], err)
		}
		if code.ExitStatus() != exit {
			t.Errorf("%s.ExitStatus() = %d, section 3 says %d", code, code.ExitStatus(), exit)
		}
	}
	if !slices.Equal(got, runtimev1.ErrorCodes) {
		t.Errorf("section 3 lists codes %v, ErrorCodes is %v", got, runtimev1.ErrorCodes)
	}
	if runtimev1.ErrorCode("NoSuchCode").ExitStatus() != runtimev1.ExitFailed {
		t.Error("an unknown code does not map to ExitFailed")
	}
}

func TestEventTypesAreSection52sTable(t *testing.T) {
	got := spans(column(section(t, contractDoc(t), "### 5.2"), 0))
	var want []string
	for _, e := range runtimev1.EventTypes {
		want = append(want, string(e))
	}
	if !slices.Equal(got, want) {
		t.Errorf("section 5.2 lists %v, EventTypes is %v", got, want)
	}
}

func TestProfilesAreSection6sTable(t *testing.T) {
	got := spans(column(section(t, contractDoc(t), "## 6."), 0))
	var want []string
	for _, p := range runtimev1.Profiles {
		want = append(want, string(p))
		if !p.Known() {
			t.Errorf("%s is not Known", p)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("section 6 lists %v, Profiles is %v", got, want)
	}
	if runtimev1.Profile("gpu").Known() {
		t.Error("an unknown profile is Known")
	}
}

// jsonFields returns the JSON names of a struct type's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// The Go type, the table of section 5.1 and the schema Event name the same fields.
func TestTheEventIsSection51AndTheSchema(t *testing.T) {
	fields := jsonFields(reflect.TypeFor[runtimev1.Event]())
	doc := spans(column(section(t, contractDoc(t), "### 5.1"), 0))
	sort.Strings(doc)
	doc = slices.Compact(doc)
	if !slices.Equal(fields, doc) {
		t.Errorf("Event has JSON fields %v, section 5.1's table %v", fields, doc)
	}
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schema.JSON("Event"), &s); err != nil {
		t.Fatal(err)
	}
	var props []string
	for p := range s.Properties {
		props = append(props, p)
	}
	sort.Strings(props)
	if !slices.Equal(fields, props) {
		t.Errorf("Event has JSON fields %v, schema Event %v", fields, props)
	}
}

func TestAnEventWithEveryFieldValidates(t *testing.T) {
	n, g := int32(2), int64(30)
	sig := v1alpha1.Signal{Name: "SIGTERM", Number: 15}
	ev := runtimev1.Event{Seq: 7, Time: time.Date(2026, 11, 30, 11, 58, 3, 123456789, time.UTC),
		Type: runtimev1.EventContainerExited, Pod: "web", PodUID: "5b0c", Container: "app",
		ContainerKind: "main", ContainerID: "5b0c-app-3", RestartCount: &n, PID: 4242, ExitCode: &n,
		Signal: &sig, Reason: "Error", Message: "m", Hook: runtimev1.HookPreStop,
		Probe: runtimev1.ProbeLiveness, Phase: v1alpha1.PodFailed, DecidedBy: "app",
		Result: runtimev1.ResultTimeout, GracePeriodSeconds: &g, Force: true, Notifier: "reload",
		Notification: "n1", Generation: 2}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if len(v.(map[string]any)) != len(jsonFields(reflect.TypeFor[runtimev1.Event]())) {
		t.Fatalf("not every field was set: %s", b)
	}
	if errs := schema.Validate("Event", v); len(errs) > 0 {
		t.Fatalf("%s does not validate: %v", b, errs)
	}
}

func TestTheErrorReportLine(t *testing.T) {
	cases := []struct {
		name string
		rep  runtimev1.ErrorReport
		want string
	}{
		{"a NotFound has no findings", runtimev1.ErrorReport{Code: runtimev1.CodeNotFound, Message: `pod "web" not found`},
			`{"error":{"code":"NotFound","message":"pod \"web\" not found"}}`},
		{"an InvalidManifest without findings has an empty list", runtimev1.ErrorReport{Code: runtimev1.CodeInvalidManifest, Message: "invalid"},
			`{"error":{"code":"InvalidManifest","message":"invalid","findings":[]}}`},
		{"findings of another code are left out", runtimev1.ErrorReport{Code: runtimev1.CodeFailed, Message: "x", Findings: []finding.Finding{{Rule: "DEP-003"}}},
			`{"error":{"code":"Failed","message":"x"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(tc.rep.Line()); got != tc.want {
				t.Fatalf("Line() = %s, want %s", got, tc.want)
			}
		})
	}
	rep := runtimev1.ErrorReport{Code: runtimev1.CodeInvalidManifest, Message: "invalid", Findings: []finding.Finding{{Rule: "DEP-003", Message: "cycle"}}}
	stderr := "warning: something\n" + string(rep.Line()) + "\n"
	got := runtimev1.LastErrorReport([]byte(stderr))
	if got == nil || got.Code != rep.Code || got.Message != rep.Message || len(got.Findings) != 1 || got.Findings[0].Rule != "DEP-003" {
		t.Fatalf("LastErrorReport = %+v, want %+v", got, rep)
	}
	if runtimev1.LastErrorReport([]byte("plain text\n{\"other\":1}\n")) != nil {
		t.Fatal("LastErrorReport found a report where there is none")
	}
}

// The rule catalog (package spec, generated from docs/requirements.yaml) names the profile of
// each requirement with constants of its own, since spec imports nothing of podspec. Those that
// are capability profiles of a runtime are the contract's, spelled as here (the catalog has
// profiles of other kinds too: kubernetes, the validator's profile for Kubernetes objects).
func TestTheCatalogsRuntimeProfilesAreTheContracts(t *testing.T) {
	for name, p := range map[string]string{"core": spec.ProfileCore, "defer": spec.ProfileDefer,
		"notifier": spec.ProfileNotifier, "update": spec.ProfileUpdate, "gc": spec.ProfileGC} {
		if !runtimev1.Profile(p).Known() || p != name {
			t.Errorf("spec's profile %q is not the contract's %q", p, name)
		}
	}
}

// Every field of the version object is in section 4.1's example, and the contract version the
// example reports is this package's.
func TestTheVersionIsSection41(t *testing.T) {
	text := section(t, contractDoc(t), "### 4.1")
	for _, f := range jsonFields(reflect.TypeFor[runtimev1.Version]()) {
		if !strings.Contains(text, `"`+f+`":`) {
			t.Errorf("Version field %q is not in section 4.1's example", f)
		}
	}
	if !strings.Contains(text, `"contractVersion": "`+runtimev1.ContractVersion+`"`) {
		t.Errorf("section 4.1's example does not report contract %s", runtimev1.ContractVersion)
	}
	minor, ok := runtimev1.ContractMinor(runtimev1.ContractVersion)
	if !ok || minor < runtimev1.StateDirectoriesSince {
		t.Errorf("ContractVersion %s is older than the field stateDirectories it types", runtimev1.ContractVersion)
	}
}

func TestContractMinor(t *testing.T) {
	for v, want := range map[string]int{"1.0": 0, "1.1": 1, "1.2": 2, "1.10": 10} {
		if got, ok := runtimev1.ContractMinor(v); !ok || got != want {
			t.Errorf("ContractMinor(%q) = %d, %v", v, got, ok)
		}
	}
	for _, v := range []string{"", "1", "1.", "2.0", "1.x", "1.2.3", " 1.2"} {
		if _, ok := runtimev1.ContractMinor(v); ok {
			t.Errorf("ContractMinor(%q) is ok", v)
		}
	}
	old := runtimev1.Version{ContractVersion: "1.1"}
	cur := runtimev1.Version{ContractVersion: "1.2"}
	if old.HasStateDirectories() || !cur.HasStateDirectories() {
		t.Error("HasStateDirectories: want false for 1.1, true for 1.2")
	}
}
