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
	"podspec.dev/podspec/validation/field"
)

// reOwnedCase matches the rule areas whose corpus cases this package writes (the CLI helper writes
// MAN-*, ID-001 and ID-003 cases); for these files the semantic checks alone must report
// exactly the expected findings at the expected positions.
var reOwnedCase = regexp.MustCompile(`^(ID-002|(MAIN|DEP|EXIT|RST|STOP|HOOK|NTF|NOTIF|VOL|RES|DEFER|UPD|IMG)-[0-9]{3})-`)

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
	seen := map[string]bool{}
	for _, file := range files {
		base := filepath.Base(file)
		if !reOwnedCase.MatchString(base) {
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
			rule := strings.Join(strings.SplitN(base, "-", 3)[:2], "-")
			if !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(w, rule+" ") }) {
				t.Errorf("no expectation for the file's own rule %s", rule)
			}
			seen[rule] = true
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
	for _, rule := range []string{
		"ID-002", "MAIN-001", "DEP-001", "DEP-002", "DEP-003", "DEP-004", "DEP-005", "DEP-006",
		"EXIT-001", "RST-001", "STOP-001", "STOP-002", "HOOK-001", "HOOK-002", "NTF-001", "NTF-002",
		"NTF-003", "NOTIF-001", "VOL-001", "VOL-002", "VOL-003", "RES-001", "DEFER-001", "IMG-001",
	} {
		if !seen[rule] {
			t.Errorf("no corpus case testdata/invalid/%s-*.yaml", rule)
		}
	}
}

func TestUpdateCorpus(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join(corpusDir, "update"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, de := range dirs {
		name := de.Name()
		valid := strings.HasPrefix(name, "valid-")
		if !de.IsDir() || !valid && !reOwnedCase.MatchString(name) {
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
			if !valid {
				seen[strings.Join(strings.SplitN(name, "-", 3)[:2], "-")] = true
			}
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
	for _, rule := range []string{"UPD-001", "UPD-002"} {
		if !seen[rule] {
			t.Errorf("no corpus case testdata/update/%s-*", rule)
		}
	}
}
