package docs

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/spec"
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
		return spec.Must
	case "SHOULD", "SHOULD NOT":
		return spec.Should
	case "MAY":
		return spec.May
	}
	return ""
}

func mustRequirements(t *testing.T) []spec.Requirement {
	t.Helper()
	return spec.All()
}

// idPattern is the shape of every requirement ID.
var idPattern = regexp.MustCompile(`^[A-Z]+-[0-9]{3}$`)

// anchorPattern finds requirement anchors in the spec text.
var anchorPattern = regexp.MustCompile(`<a name="([A-Z]+-[0-9]{3})"></a>`)

// specFiles lists the embedded spec documents in reading order: spec.md, then spec/*.md sorted.
func specFiles(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "spec/*.md")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return append([]string{"spec.md"}, names...), nil
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
		if _, ok := spec.Lookup(s.id); !ok {
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
		r, ok := spec.Lookup(s.id)
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
		r, ok := spec.Lookup(s.id)
		if !ok {
			continue
		}
		if got, want := normalise(r.Text), normalise(s.text); got != want {
			t.Errorf("%s: registry text differs from %s:%d\nregistry: %s\nspec:     %s", s.id, s.file, s.line, got, want)
		}
	}
}

// TestEveryClauseIsWordsOfItsSentence holds each clause of the registry to the anchored sentence
// of its requirement: its text occurs in it, so that a clause never says more than the spec.
func TestEveryClauseIsWordsOfItsSentence(t *testing.T) {
	anchored := map[string]string{}
	for _, s := range specSentences(t) {
		anchored[s.id] = normalise(s.text)
	}
	n := 0
	for _, r := range mustRequirements(t) {
		for _, c := range r.Clauses {
			n++
			if c.Requirement != r.ID || c.ID != r.ID+"."+c.Key {
				t.Errorf("%s: clause %s names requirement %s", r.ID, c.ID, c.Requirement)
			}
			if !strings.Contains(anchored[r.ID], normalise(c.Text)) {
				t.Errorf("%s: the text of clause %s is not in the sentence\nclause:   %s\nsentence: %s", r.ID, c.Key, c.Text, anchored[r.ID])
			}
		}
	}
	if n == 0 {
		t.Error("no requirement of the registry has clauses")
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
			r, ok := spec.Lookup(id)
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

func TestManifestFormRulesAreValidatorOnly(t *testing.T) {
	for _, r := range mustRequirements(t) {
		if r.Area == "MAN" && r.ID <= "MAN-009" && r.RuntimeTested() {
			t.Errorf("%s is a manifest-form rule but is marked as runtime-tested", r.ID)
		}
	}
}

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
