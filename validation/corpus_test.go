package validation

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ownedRule reports whether the semantic checks alone must explain the corpus cases of a rule:
// every rule of the catalog but the manifest-form rules (MAN-*), ID-001 and ID-003, which the
// decoder and the schema report and the validator's golden test covers, and the Kubernetes
// profile (package kubernetes, testdata/kubernetes/). For these cases the
// semantic checks must report exactly the expected findings at the expected positions.
func ownedRule(id string) bool {
	r, ok := spec.Lookup(id)
	return ok && r.IsRule() && r.Area != "MAN" && id != spec.ID001 && id != spec.ID003 && r.Profile != spec.ProfileKubernetes
}

// caseRule is the rule a corpus case is named after: the first two parts of DEP-003-cycle.yaml.
func caseRule(name string) string {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[0] + "-" + parts[1]
}

// ownedRules are the rules whose cases live in dir ("invalid" or "update"): update rules (profile
// update) need an old pod and live in update/, the others in invalid/.
func ownedRules(dir string) []string {
	var out []string
	for _, r := range spec.Rules() {
		if ownedRule(r.ID) && (r.Profile == spec.ProfileUpdate) == (dir == "update") {
			out = append(out, r.ID)
		}
	}
	return out
}

var reExpectLine = regexp.MustCompile(`^#\s*expect:\s*([A-Z]+-[0-9]{3})\s+([0-9]+):([0-9]+)\s*$`)

const corpusDir = "../testdata"

// expectations reads the "# expect: RULE LINE:COL" lines at the top of a corpus file.
func expectations(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		if m := reExpectLine.FindStringSubmatch(line); m != nil {
			out = append(out, fmt.Sprintf("%s %s:%s", m[1], m[2], m[3]))
		}
	}
	slices.Sort(out)
	return out
}

// decodeOne decodes a single-document corpus file through the real decoder.
func decodeOne(t *testing.T, file string, data []byte) *manifest.Document {
	t.Helper()
	docs, fs := manifest.Decode(file, data, manifest.DefaultLimits())
	if len(fs) > 0 || len(docs) != 1 {
		t.Fatalf("decode %s: %d documents, findings %v", file, len(docs), fs)
	}
	return docs[0]
}

// positioned renders findings as sorted "RULE LINE:COL" the way the pipeline resolves them.
func positioned(d *manifest.Document, errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		line, col := d.Position(e.Field.Tokens(), e.OnKey)
		out = append(out, fmt.Sprintf("%s %d:%d", e.Rule, line, col))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestInvalidCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "invalid", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		base := filepath.Base(file)
		if !ownedRule(caseRule(base)) {
			continue
		}
		t.Run(strings.TrimSuffix(base, ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want := expectations(t, data)
			if len(want) == 0 {
				t.Fatal("no # expect: lines")
			}
			rule := caseRule(base)
			if !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(w, rule+" ") }) {
				t.Errorf("no expectation for the file's own rule %s", rule)
			}
			d := decodeOne(t, file, data)
			var errs field.ErrorList
			switch d.Kind {
			case v1alpha1.KindPod:
				p, err := d.Pod()
				if err != nil {
					t.Fatal(err)
				}
				p.SetDefaults()
				errs = ValidatePod(p)
			case v1alpha1.KindNotification:
				n, err := d.Notification()
				if err != nil {
					t.Fatal(err)
				}
				n.SetDefaults()
				errs = ValidateNotification(n)
			default:
				t.Fatalf("kind %q", d.Kind)
			}
			if got := positioned(d, errs); !slices.Equal(got, want) {
				t.Errorf("findings differ\n  want %v\n  got  %v", want, got)
				for _, e := range errs {
					t.Logf("  %s %s", e.Rule, e.Error())
				}
			}
		})
	}
}

// Every rule the semantic checks own has a case: a file testdata/invalid/RULE-*.yaml, or for an
// update rule a directory testdata/update/RULE-*. (A test of its own, so that running one case
// with -run does not report the others missing.)
func TestEveryOwnedRuleHasACorpusCase(t *testing.T) {
	for _, dir := range []string{"invalid", "update"} {
		for _, rule := range ownedRules(dir) {
			matches, err := filepath.Glob(filepath.Join(corpusDir, dir, rule+"-*"))
			if err != nil {
				t.Fatal(err)
			}
			if len(matches) == 0 {
				t.Errorf("no corpus case testdata/%s/%s-*", dir, rule)
			}
		}
	}
}

func TestUpdateCorpus(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join(corpusDir, "update"))
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range dirs {
		name := de.Name()
		valid := strings.HasPrefix(name, "valid-")
		if !de.IsDir() || !valid && !ownedRule(caseRule(name)) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			load := func(file string) (*manifest.Document, *v1alpha1.Pod) {
				data, err := os.ReadFile(filepath.Join(corpusDir, "update", name, file))
				if err != nil {
					t.Fatal(err)
				}
				d := decodeOne(t, file, data)
				p, err := d.Pod()
				if err != nil {
					t.Fatal(err)
				}
				p.SetDefaults()
				if errs := ValidatePod(p); len(errs) > 0 {
					t.Errorf("%s is not a valid pod on its own: %v", file, errs)
				}
				return d, p
			}
			_, oldPod := load("old.yaml")
			d, newPod := load("new.yaml")
			data, _ := os.ReadFile(filepath.Join(corpusDir, "update", name, "new.yaml"))
			want := expectations(t, data)
			errs := ValidatePodUpdate(newPod, oldPod)
			if got := positioned(d, errs); !slices.Equal(got, want) {
				t.Errorf("findings differ\n  want %v\n  got  %v", want, got)
				for _, e := range errs {
					t.Logf("  %s %s", e.Rule, e.Error())
				}
			}
			if valid && MutableChanges(newPod, oldPod).Empty() {
				t.Error("a valid update case changes nothing")
			}
		})
	}
}
