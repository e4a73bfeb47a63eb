package schema

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// patternAlphabet holds a character of every class the fixed patterns distinguish: lower and
// upper case letters (among them the exponent, the quantity suffixes and SIG), digits, the
// punctuation they accept or refuse, a newline, '=', and bytes outside ASCII.
const patternAlphabet = "az0123456789AZEeGiKkmMoc-_./+:= ~\n\tSI\x7f"

var patternSpecials = []string{"é", "\x80", "\xff"}

// TestFixedPatternsMatchTheirRegexps holds every hand-written matcher to its regular
// expression: on every string of up to three characters of patternAlphabet, on every string
// in the schemas' corpus (each scalar and key of testdata's manifests), on those strings with
// one character inserted, replaced or removed, and on random strings around the length
// bounds.
func TestFixedPatternsMatchTheirRegexps(t *testing.T) {
	inputs := patternInputs(t)
	for expr, match := range fixedPatterns {
		re := regexp.MustCompile(expr)
		accepted := 0
		for _, s := range inputs {
			if got, want := match(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: matcher says %v, regexp %v", expr, s, got, want)
			} else if got {
				accepted++
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no input matched, so the test checks only refusals", expr)
		}
	}
}

// TestFixedPatternsAreTheSchemas: every fixed pattern is one the embedded schemas use (a stale
// entry would hide that a schema's pattern changed), and the compiled schemas use the matcher.
func TestFixedPatternsAreTheSchemas(t *testing.T) {
	used := map[string]bool{}
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := files.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for expr := range fixedPatterns {
			if strings.Contains(string(data), jsonString(expr)) {
				used[expr] = true
			}
		}
	}
	for expr := range fixedPatterns {
		if !used[expr] {
			t.Errorf("fixed pattern %s is in no schema", expr)
		}
	}
	p, err := newPattern(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	if err != nil {
		t.Fatal(err)
	}
	if !p.MatchString("web-1") || p.MatchString("-web") || p.String() != `^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$` {
		t.Errorf("pattern of a DNS label: matches web-1 %v, -web %v, source %s", p.MatchString("web-1"), p.MatchString("-web"), p)
	}
	if other, err := newPattern(`^x+$`); err != nil || !other.MatchString("xx") || other.MatchString("xy") {
		t.Errorf("a pattern without a matcher is matched by its regexp: %v", err)
	}
}

// jsonString is s as the generated schemas write it: a JSON string literal with backslashes
// escaped (the patterns hold no quotes or control characters).
func jsonString(s string) string {
	return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"`
}

func FuzzFixedPatterns(f *testing.F) {
	for _, s := range []string{"", "web-1", "example.com/owner", "a/b/c", "64Mi", "1E", "1e5Ei", "+.5",
		"SIGINT", "oci:x", "oci:\n", "POD_NAME", "A=B", "/data", strings.Repeat("a", 63), strings.Repeat("a", 64)} {
		f.Add(s)
	}
	res := map[string]*regexp.Regexp{}
	for expr := range fixedPatterns {
		res[expr] = regexp.MustCompile(expr)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for expr, match := range fixedPatterns {
			if got, want := match(s), res[expr].MatchString(s); got != want {
				t.Errorf("%s on %q: matcher says %v, regexp %v", expr, s, got, want)
			}
		}
	})
}

// patternInputs are the strings TestFixedPatternsMatchTheirRegexps tries.
func patternInputs(t *testing.T) []string {
	alphabet := strings.Split(patternAlphabet, "")
	alphabet = append(alphabet, patternSpecials...)
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var grow func(prefix string, n int)
	grow = func(prefix string, n int) {
		add(prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			grow(prefix+c, n-1)
		}
	}
	grow("", 3)

	corpus := corpusStrings(t)
	for _, s := range corpus {
		add(s)
		for i := 0; i <= len(s); i++ {
			if i < len(s) {
				add(s[:i] + s[i+1:])
			}
			for _, c := range alphabet {
				add(s[:i] + c + s[i:])
				if i < len(s) {
					add(s[:i] + c + s[i+1:])
				}
			}
		}
	}

	rng := rand.New(rand.NewPCG(16, 1))
	for range 20000 {
		var b strings.Builder
		n := rng.IntN(70)
		if rng.IntN(2) == 0 {
			n = 60 + rng.IntN(8) // around the 63-character bounds
		}
		if rng.IntN(3) == 0 {
			b.WriteString([]string{"SIG", "oci:", "/", "a.b/", "1", "+1.5e"}[rng.IntN(6)])
		}
		for b.Len() < n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		add(b.String())
	}
	for _, n := range []int{61, 62, 63, 64, 65} {
		for _, prefix := range []string{"", "example.com/", strings.Repeat("b", 70) + "/"} {
			add(prefix + strings.Repeat("a", n))
			add(prefix + "a" + strings.Repeat("-", n-2) + "a")
			add(prefix + "A" + strings.Repeat("_", n-2) + "Z")
		}
	}
	return out
}

// corpusStrings are the scalars and keys of every YAML manifest under testdata.
func corpusStrings(t *testing.T) []string {
	var out []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode {
			out = append(out, n.Value)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc yaml.Node
			if dec.Decode(&doc) != nil {
				break // the end, or a document the corpus holds for its syntax error
			}
			walk(&doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 1000 {
		t.Fatalf("only %d strings in the corpus", len(out))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
