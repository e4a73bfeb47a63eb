package oracle_test

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/schema/oracle"
)

// sample is one document to validate as kind.
type sample struct {
	name  string
	kind  string
	value any
}

// samples returns the manifests of the corpus and the examples (decoded by package manifest, as
// podspec validate decodes them) and the status documents of testdata/, named KIND-*.yaml.
func samples(t testing.TB) []sample {
	t.Helper()
	var out []sample
	for _, dir := range []string{"../../testdata", "../../examples"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs, _ := manifest.Decode(path, data, manifest.DefaultLimits())
			for _, d := range docs {
				if d.Kind == "Pod" || d.Kind == "Notification" {
					out = append(out, sample{fmt.Sprintf("%s#%d", path, d.Index), d.Kind, d.Value})
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, sample{f, strings.SplitN(filepath.Base(f), "-", 2)[0], v})
	}
	if len(out) < 100 {
		t.Fatalf("only %d samples found", len(out))
	}
	return out
}

// describe renders violations completely (every field), one per line.
func describe(vs []schema.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%d %q value=%#v/%v names=%q set=%q want=%q pattern=%q %s%s\n",
			v.Kind, v.Tokens, v.Value, v.HasValue, v.Names, v.Set, v.Want, v.Pattern, v.Op, v.Limit)
	}
	return b.String()
}

// agree fails t when the engine and the library report different violations for value.
func agree(t testing.TB, what, kind string, value any) {
	t.Helper()
	want, err := oracle.Violations(kind, value)
	if err != nil {
		t.Fatalf("%s: the library: %v", what, err)
	}
	if got := schema.Violations(kind, value); describe(got) != describe(want) {
		t.Errorf("%s: the engine and the library disagree\nengine:\n%slibrary:\n%s", what, describe(got), describe(want))
	}
}

func TestTheEngineAgreesWithTheLibraryOnTheCorpus(t *testing.T) {
	invalid := 0
	for _, s := range samples(t) {
		agree(t, s.name, s.kind, s.value)
		if len(schema.Violations(s.kind, s.value)) > 0 {
			invalid++
		}
	}
	if invalid == 0 {
		t.Fatal("no sample breaks a structural rule: the comparison covers valid documents only")
	}
}

// TestTheEngineAgreesWithTheLibraryOnMutants mutates every sample many times (a fixed seed):
// removed fields, unknown fields, values of other types and out of bounds, several at once.
func TestTheEngineAgreesWithTheLibraryOnMutants(t *testing.T) {
	ss := samples(t)
	rng := rand.New(rand.NewPCG(3, 4))
	n := 5000
	if testing.Short() {
		n = 500
	}
	broken := 0
	for i := 0; i < n; i++ {
		s := ss[rng.IntN(len(ss))]
		v, desc := oracle.Mutant(rng, s.value)
		agree(t, fmt.Sprintf("mutant %d of %s %v", i, s.name, desc), s.kind, v)
		if len(schema.Violations(s.kind, v)) > 0 {
			broken++
		}
	}
	if broken < n/2 {
		t.Fatalf("only %d of %d mutants break a rule", broken, n)
	}
}

// FuzzTheEngineAgreesWithTheLibrary decodes arbitrary bytes as podspec validate does and
// requires identical violations from both for every document.
func FuzzTheEngineAgreesWithTheLibrary(f *testing.F) {
	for _, dir := range []string{"../../testdata/valid", "../../testdata/invalid", "../../examples"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := manifest.Decode("fuzz.yaml", data, manifest.DefaultLimits())
		for _, d := range docs {
			for _, kind := range schema.Kinds() {
				agree(t, fmt.Sprintf("document %d as %s", d.Index, kind), kind, d.Value)
			}
		}
	})
}

// TestTheEngineAgreesWithTheLibraryOnNaNAndInfinity puts the numbers YAML can write and JSON
// cannot (.nan, .inf) at every position of every sample, one at a time.
func TestTheEngineAgreesWithTheLibraryOnNaNAndInfinity(t *testing.T) {
	for _, s := range samples(t) {
		for i, p := range oracle.Paths(s.value) {
			if len(p) == 0 || i%7 != 0 {
				continue // every seventh position keeps the test short and still reaches every kind of field
			}
			for _, x := range []any{math.NaN(), math.Inf(-1)} {
				v := oracle.Set(oracle.Clone(s.value), p, x)
				agree(t, fmt.Sprintf("%s with %v at %q", s.name, x, p), s.kind, v)
			}
		}
	}
}
