package docs

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// requirementLine is the one form a normative sentence may take in the spec.
var requirementLine = regexp.MustCompile(`^- <a name="([A-Z]+-[0-9]{3})"></a>\*\*([A-Z]+-[0-9]{3})\*\* (.+)$`)

// keyword finds RFC 2119 key words in capitals (longest alternatives first).
var keyword = regexp.MustCompile(`\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\b`)

// specLink finds links to requirement anchors: [TEXT](file.md#ID) or (#ID).
var specLink = regexp.MustCompile(`\]\(([a-z0-9./-]*\.md)?#([A-Z]+-[0-9]{3})\)`)

// sentence is one anchored requirement found in the spec text.
type sentence struct {
	id, text, file string
	line           int
}

// specSentences returns every anchored requirement of the embedded spec, and fails the test on
// an anchor that is not in the one allowed form.
func specSentences(t *testing.T) []sentence {
	t.Helper()
	names, err := specFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	var out []sentence
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			m := requirementLine.FindStringSubmatch(line)
			if m == nil {
				if anchorPattern.MatchString(line) {
					t.Errorf("%s:%d: requirement anchor outside the form `- <a name=\"ID\"></a>**ID** sentence`", name, i+1)
				}
				continue
			}
			if m[1] != m[2] {
				t.Errorf("%s:%d: anchor %s is labelled %s", name, i+1, m[1], m[2])
			}
			out = append(out, sentence{id: m[1], text: m[3], file: name, line: i + 1})
		}
	}
	if len(out) == 0 {
		t.Fatal("the embedded spec has no anchored requirement")
	}
	return out
}

func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

// levelOf maps the key word of a sentence to a registry level.
func levelOf(kw string) string {
	switch kw {
	case "MUST", "MUST NOT":
		return LevelMust
	case "SHOULD", "SHOULD NOT":
		return LevelShould
	case "MAY":
		return LevelMay
	}
	return ""
}

func mustRequirements(t *testing.T) []Requirement {
	t.Helper()
	reqs, err := Requirements()
	if err != nil {
		t.Fatalf("load registry: %v", err)
	}
	return reqs
}

func TestEveryRegistryIDIsAnchoredExactlyOnceInTheSpec(t *testing.T) {
	anchors := map[string][]string{}
	for _, s := range specSentences(t) {
		anchors[s.id] = append(anchors[s.id], fmt.Sprintf("%s:%d", s.file, s.line))
	}
	for _, r := range mustRequirements(t) {
		switch where := anchors[r.ID]; len(where) {
		case 0:
			t.Errorf("%s is in requirements.yaml but not anchored in the spec", r.ID)
		case 1:
		default:
			t.Errorf("%s is anchored %d times: %v", r.ID, len(where), where)
		}
	}
}

func TestEverySpecAnchorIsInTheRegistry(t *testing.T) {
	for _, s := range specSentences(t) {
		if _, ok := Lookup(s.id); !ok {
			t.Errorf("%s:%d: %s is anchored in the spec but missing from requirements.yaml", s.file, s.line, s.id)
		}
	}
}

func TestEveryAnchoredSentenceHasExactlyOneKeyWord(t *testing.T) {
	for _, s := range specSentences(t) {
		if kws := keyword.FindAllString(s.text, -1); len(kws) != 1 {
			t.Errorf("%s:%d: %s has key words %v, want exactly one", s.file, s.line, s.id, kws)
		}
	}
}

func TestRegistryLevelIsTheKeyWordOfTheSentence(t *testing.T) {
	for _, s := range specSentences(t) {
		r, ok := Lookup(s.id)
		if !ok {
			continue // reported by TestEverySpecAnchorIsInTheRegistry
		}
		want := levelOf(keyword.FindString(s.text))
		if r.Level != want {
			t.Errorf("%s: registry level %s, the sentence says %s", s.id, r.Level, want)
		}
	}
}

func TestRegistryTextIsTheAnchoredSentence(t *testing.T) {
	for _, s := range specSentences(t) {
		r, ok := Lookup(s.id)
		if !ok {
			continue
		}
		if got, want := normalise(r.Text), normalise(s.text); got != want {
			t.Errorf("%s: registry text differs from %s:%d\nregistry: %s\nspec:     %s", s.id, s.file, s.line, got, want)
		}
	}
}

func TestRegistryOrderFollowsTheSpecOrderWithinEachFile(t *testing.T) {
	pos := map[string]int{}
	for i, s := range specSentences(t) {
		pos[s.id] = i
	}
	last := map[string]int{} // per source file: spec position of the previous registry entry
	for _, r := range mustRequirements(t) {
		p, ok := pos[r.ID]
		if !ok {
			continue
		}
		if prev, seen := last[r.Source]; seen && p < prev {
			t.Errorf("%s comes after a requirement that follows it in %s", r.ID, r.Source)
		}
		last[r.Source] = p
	}
}

func TestNormativeKeyWordsAppearOnlyInAnchoredSentences(t *testing.T) {
	names, err := fs.Glob(files, "spec/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if requirementLine.MatchString(line) {
				continue
			}
			if kw := keyword.FindString(line); kw != "" {
				t.Errorf("%s:%d: key word %s outside an anchored requirement (write it in lower case or give the sentence an ID)", name, i+1, kw)
			}
		}
	}
}

func TestRequirementIDsFollowTheScheme(t *testing.T) {
	for _, r := range mustRequirements(t) {
		if !idPattern.MatchString(r.ID) {
			t.Errorf("id %q does not match %s", r.ID, idPattern)
		}
		if !strings.HasPrefix(r.ID, r.Area+"-") {
			t.Errorf("%s: area %s is not its prefix", r.ID, r.Area)
		}
	}
}

func TestEveryLinkToARequirementPointsAtItsAnchor(t *testing.T) {
	names, err := specFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range specLink.FindAllStringSubmatch(string(data), -1) {
			target, id := m[1], m[2]
			r, ok := Lookup(id)
			if !ok {
				t.Errorf("%s links to unknown requirement %s", name, id)
				continue
			}
			want := name // a bare #ID points into the same file
			if target != "" {
				want = strings.TrimPrefix(pathJoin(dirOf(name), target), "./")
			}
			if r.Source != want {
				t.Errorf("%s links to %s in %s, but it is anchored in %s", name, id, want, r.Source)
			}
		}
	}
}

func dirOf(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[:i]
	}
	return "."
}

func pathJoin(dir, rel string) string {
	parts := strings.Split(dir, "/")
	if dir == "." {
		parts = nil
	}
	for _, p := range strings.Split(rel, "/") {
		switch p {
		case ".", "":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// planValidatorRules are the validator rule IDs fixed by the project plan, with their severity.
var planValidatorRules = []struct {
	id    string
	level string
}{
	{"MAN-001", LevelMust}, {"MAN-002", LevelMust}, {"MAN-003", LevelMust}, {"MAN-004", LevelMust},
	{"MAN-005", LevelMust}, {"MAN-006", LevelMust}, {"MAN-007", LevelMust}, {"MAN-008", LevelShould},
	{"MAN-009", LevelShould}, {"ID-001", LevelMust}, {"ID-002", LevelMust}, {"ID-003", LevelMust},
	{"MAIN-001", LevelMust}, {"DEP-001", LevelMust}, {"DEP-002", LevelMust}, {"DEP-003", LevelMust},
	{"DEP-004", LevelMust}, {"DEP-005", LevelMust}, {"DEP-006", LevelMust}, {"EXIT-001", LevelShould},
	{"RST-001", LevelMust}, {"STOP-001", LevelMust}, {"STOP-002", LevelShould}, {"HOOK-001", LevelMust},
	{"HOOK-002", LevelMust}, {"NTF-001", LevelMust}, {"NTF-002", LevelMust}, {"NTF-003", LevelMust},
	{"NOTIF-001", LevelMust}, {"VOL-001", LevelMust}, {"VOL-002", LevelMust}, {"VOL-003", LevelMust},
	{"RES-001", LevelMust}, {"DEFER-001", LevelMust}, {"UPD-001", LevelMust}, {"UPD-002", LevelMust},
	{"IMG-001", LevelMust},
}

func TestEveryPlannedValidatorRuleIsARegisteredValidatorRequirement(t *testing.T) {
	for _, tc := range planValidatorRules {
		t.Run(tc.id+" is a validator rule of level "+tc.level, func(t *testing.T) {
			r, ok := Lookup(tc.id)
			if !ok {
				t.Fatalf("%s is not in the registry", tc.id)
			}
			if !r.ValidatorRule() {
				t.Errorf("%s: enforcedBy %v lacks validator", tc.id, r.EnforcedBy)
			}
			if r.Level != tc.level {
				t.Errorf("%s: level %s, the plan's severity needs %s", tc.id, r.Level, tc.level)
			}
		})
	}
}

func TestManifestFormRulesAreValidatorOnly(t *testing.T) {
	for _, r := range mustRequirements(t) {
		if r.Area == "MAN" && r.ID <= "MAN-009" && r.RuntimeTested() {
			t.Errorf("%s is a manifest-form rule but is marked as runtime-tested", r.ID)
		}
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		name   string
		id     string
		wantOK bool
	}{
		{"a known requirement is found", "STOP-001", true},
		{"an unknown ID is not found", "STOP-999", false},
		{"an ID in lower case is not found", "stop-001", false},
		{"the empty string is not found", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Lookup(tc.id)
			if ok != tc.wantOK {
				t.Fatalf("Lookup(%q) ok = %v, want %v", tc.id, ok, tc.wantOK)
			}
			if ok && (r.ID != tc.id || r.Source == "" || r.Link() != "docs/"+r.Source+"#"+tc.id) {
				t.Errorf("Lookup(%q) = %+v", tc.id, r)
			}
		})
	}
}

func TestRequirementsReturnsACopy(t *testing.T) {
	first := mustRequirements(t)
	first[0].Text = "changed"
	first[0].EnforcedBy[0] = "changed"
	second := mustRequirements(t)
	if second[0].Text == "changed" || second[0].EnforcedBy[0] == "changed" {
		t.Error("changing the result of Requirements changed the registry")
	}
}

func TestLoadRejectsABrokenRegistry(t *testing.T) {
	cases := []struct {
		name    string
		yaml    string
		wantErr string
	}{
		{"an unknown field is rejected", "requirements:\n  - id: A-001\n    colour: red\n", "colour"},
		{"a malformed ID is rejected", entry("A-1", "MUST", "A", "core", "runtime"), "does not match"},
		{"an area that is not the prefix is rejected", entry("A-001", "MUST", "B", "core", "runtime"), "area"},
		{"an unknown level is rejected", entry("A-001", "MUST NOT", "A", "core", "runtime"), "level"},
		{"an unknown profile is rejected", entry("A-001", "MUST", "A", "extra", "runtime"), "profile"},
		{"an unknown enforcer is rejected", entry("A-001", "MUST", "A", "core", "linter"), "enforcedBy"},
		{"a duplicate ID is rejected", entry("A-001", "MUST", "A", "core", "runtime") + strings.TrimPrefix(entry("A-001", "MUST", "A", "core", "runtime"), "requirements:\n"), "duplicate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fsys := overlayFS{base: files, name: "requirements.yaml", data: []byte(tc.yaml)}
			_, err := load(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("load() error = %v, want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func entry(id, level, area, profile, by string) string {
	return fmt.Sprintf("requirements:\n  - id: %s\n    level: %s\n    area: %s\n    profile: %s\n    since: \"0.1\"\n    enforcedBy: [%s]\n    text: \"A runtime MUST do it.\"\n", id, level, area, profile, by)
}

// overlayFS replaces one file of a base file system.
type overlayFS struct {
	base fs.FS
	name string
	data []byte
}

func (o overlayFS) Open(name string) (fs.File, error) { return o.base.Open(name) }

// ReadFile lets fs.ReadFile see the replaced file.
func (o overlayFS) ReadFile(name string) ([]byte, error) {
	if name == o.name {
		return slices.Clone(o.data), nil
	}
	return fs.ReadFile(o.base, name)
}

// Glob keeps fs.Glob working on the base file system.
func (o overlayFS) Glob(pattern string) ([]string, error) { return fs.Glob(o.base, pattern) }

func TestEverySpecDocumentIsListedInTheIndex(t *testing.T) {
	index, err := fs.ReadFile(files, "spec.md")
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(files, "spec/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if !strings.Contains(string(index), "("+name+")") {
			t.Errorf("spec.md does not link %s", name)
		}
	}
}

func TestEveryOpenQuestionHasADecision(t *testing.T) {
	data, err := fs.ReadFile(files, "spec/decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	groups := []struct {
		prefix string
		count  int
	}{{"D", 12}, {"N", 14}, {"A", 9}}
	for _, g := range groups {
		for i := 1; i <= g.count; i++ {
			row := fmt.Sprintf("| %s-%d |", g.prefix, i)
			if !strings.Contains(string(data), row) {
				t.Errorf("spec/decisions.md has no row for %s-%d", g.prefix, i)
			}
		}
	}
}
