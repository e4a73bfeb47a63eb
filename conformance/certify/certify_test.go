package certify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// writeBundle writes a small, valid, sealed bundle with two passing core specs.
func writeBundle(t *testing.T, mutate func(env *Environment, rep *types.Report)) (string, Expected) {
	t.Helper()
	dir := t.TempDir()
	rep := types.Report{SuiteSucceeded: true, SuiteConfig: types.SuiteConfig{FlakeAttempts: 0}}
	for _, name := range []string{"runs init containers in order", "stops sidecars last"} {
		rep.SpecReports = append(rep.SpecReports, types.SpecReport{
			ContainerHierarchyTexts: []string{"Area"},
			LeafNodeType:            types.NodeTypeIt,
			LeafNodeText:            name,
			LeafNodeLabels:          []string{"req:HB-001", "profile:core"},
			State:                   types.SpecStatePassed,
		})
	}
	env := Environment{
		Certify:         true,
		ComplianceLevel: "must",
		Suite:           SuiteInfo{ContractVersion: "1.0", SpecVersion: "0.1"},
		Runtime:         RuntimeInfo{Version: json.RawMessage(`{"profiles":["core"]}`)},
		Passed:          true,
	}
	if mutate != nil {
		mutate(&env, &rep)
	}
	data, err := json.Marshal([]types.Report{rep})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		ReportFile:   string(data),
		JUnitFile:    `<testsuites tests="2" failures="0" errors="0"><testsuite><testcase name="[It] Area runs init containers in order"></testcase><testcase name="[It] Area stops sidecars last"></testcase></testsuite></testsuites>`,
		SuiteLogFile: "Ran 2 of 2 Specs in 1.0 seconds\nSUCCESS! -- 2 Passed\n",
		CoverageJSON: "[]", CoverageMD: "# matrix\n", CommandsLog: "",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteEnvironment(dir, env); err != nil {
		t.Fatal(err)
	}
	if err := Seal(dir); err != nil {
		t.Fatal(err)
	}
	exp := Expected{ContractVersion: "1.0", SpecVersion: "0.1", Specs: map[string]string{
		"Area runs init containers in order": "core", "Area stops sidecars last": "core",
	}}
	return dir, exp
}

func TestVerifyAcceptsAValidBundle(t *testing.T) {
	dir, exp := writeBundle(t, nil)
	if err := Verify(dir, exp); err != nil {
		t.Fatalf("valid bundle rejected:\n%v", err)
	}
}

// A spec graded below the run's compliance level passed for Ginkgo and carries its failure as a
// "not met" report entry: a warning, which does not invalidate the bundle.
func TestVerifyAcceptsANotMetWarning(t *testing.T) {
	dir, exp := writeBundle(t, func(_ *Environment, r *types.Report) {
		r.SpecReports[1].ReportEntries = types.ReportEntries{{Name: "not met", Value: types.WrapEntryValue("SHOULD requirement not met")}}
	})
	if err := Verify(dir, exp); err != nil {
		t.Fatalf("bundle with a not-met warning rejected:\n%v", err)
	}
}

func TestVerifyRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Environment, *types.Report)
		after  func(t *testing.T, dir string, exp *Expected)
		want   string
	}{
		{name: "a modified file", after: func(t *testing.T, dir string, _ *Expected) {
			if err := os.WriteFile(filepath.Join(dir, SuiteLogFile), []byte("Ran 2 of 2 Specs\nSUCCESS!\nedited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "was modified"},
		{name: "a file added after sealing", after: func(t *testing.T, dir string, _ *Expected) {
			if err := os.WriteFile(filepath.Join(dir, "extra.txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "not listed"},
		{name: "a missing required file", after: func(t *testing.T, dir string, _ *Expected) {
			if err := os.Remove(filepath.Join(dir, CommandsLog)); err != nil {
				t.Fatal(err)
			}
		}, want: "missing"},
		{name: "a run without --certify", mutate: func(e *Environment, _ *types.Report) { e.Certify = false }, want: "not from a --certify run"},
		{name: "a run with no compliance level", mutate: func(e *Environment, _ *types.Report) { e.ComplianceLevel = "" }, want: "no compliance level"},
		{name: "a label-filtered run", mutate: func(_ *Environment, r *types.Report) { r.SuiteConfig.LabelFilter = "req:HB-001" }, want: "narrowed"},
		{name: "a failed spec", mutate: func(e *Environment, r *types.Report) {
			r.SpecReports[1].State = types.SpecStateFailed
			r.SuiteSucceeded = false
			e.Passed = false
		}, want: "spec failed: Area stops sidecars last"},
		{name: "a spec the suite expects but the report lacks", after: func(_ *testing.T, _ string, exp *Expected) {
			exp.Specs["Area restarts sidecars"] = "core"
		}, want: "expected spec missing"},
		{name: "a bundle from another spec version", after: func(_ *testing.T, _ string, exp *Expected) {
			exp.SpecVersion = "0.2"
		}, want: "this verifier is for"},
		{name: "a log that disagrees with the report", after: func(t *testing.T, dir string, _ *Expected) {
			if err := os.WriteFile(filepath.Join(dir, SuiteLogFile), []byte("Ran 1 of 2 Specs\nSUCCESS!\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Seal(dir); err != nil {
				t.Fatal(err)
			}
		}, want: "suite.log says it ran 1 of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, exp := writeBundle(t, tt.mutate)
			if tt.after != nil {
				tt.after(t, dir, &exp)
			}
			err := Verify(dir, exp)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Verify = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSelectionEmpty(t *testing.T) {
	if !(Selection{FlakeAttempts: 1}).Empty() || (Selection{Focus: []string{"x"}}).Empty() {
		t.Fatal("Selection.Empty is wrong")
	}
}

// writeEvidence puts one pod's failure evidence into a bundle, as the harness does.
func writeEvidence(t *testing.T, dir string) {
	t.Helper()
	pod := filepath.Join(dir, FailuresDir, "c0a1b2c-ntf-par")
	if err := os.MkdirAll(pod, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"status.json": `{"phase":"Running"}`, "events.jsonl": "{}\n", "runtime.log": "supervisor\n"} {
		if err := os.WriteFile(filepath.Join(pod, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The failure evidence is part of the sealed bundle: listed in SHA256SUMS, and a file of it
// edited, added or removed after sealing breaks the seal.
func TestTheSealCoversTheFailureEvidence(t *testing.T) {
	dir, _ := writeBundle(t, nil)
	writeEvidence(t, dir)
	if err := Seal(dir); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dir, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"status.json", "events.jsonl", "runtime.log"} {
		if !strings.Contains(string(sums), "  failures/c0a1b2c-ntf-par/"+f+"\n") {
			t.Errorf("SHA256SUMS does not list %s:\n%s", f, sums)
		}
	}
	if err := CheckSeal(dir); err != nil {
		t.Fatalf("sealed bundle with evidence rejected: %v", err)
	}
	pod := filepath.Join(dir, FailuresDir, "c0a1b2c-ntf-par")
	steps := []struct {
		what string
		do   func() error
		want string
	}{
		{"an edited evidence file", func() error { return os.WriteFile(filepath.Join(pod, "runtime.log"), []byte("edited\n"), 0o644) }, "failures/c0a1b2c-ntf-par/runtime.log was modified"},
		{"an added evidence file", func() error { return os.WriteFile(filepath.Join(pod, "extra.txt"), nil, 0o644) }, "failures/c0a1b2c-ntf-par/extra.txt is not listed"},
		{"a removed evidence file", func() error { return os.Remove(filepath.Join(pod, "events.jsonl")) }, "lists failures/c0a1b2c-ntf-par/events.jsonl, which is missing"},
	}
	for _, s := range steps {
		if err := Seal(dir); err != nil {
			t.Fatal(err)
		}
		if err := s.do(); err != nil {
			t.Fatal(err)
		}
		if err := CheckSeal(dir); err == nil || !strings.Contains(err.Error(), s.want) {
			t.Errorf("%s: CheckSeal = %v, want %q", s.what, err, s.want)
		}
	}
}

// Only failures/ may hold files below the bundle's top level, and SHA256SUMS names nothing
// outside the bundle.
func TestTheSealRefusesOtherDirectoriesAndClimbingNames(t *testing.T) {
	dir, _ := writeBundle(t, nil)
	if err := os.Mkdir(filepath.Join(dir, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Seal(dir); err == nil || !strings.Contains(err.Error(), "other is not a regular file") {
		t.Errorf("Seal with a stray directory = %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "other")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"failures/../junit.xml", "other/x", "failures//x", "/etc/passwd", `failures\x`} {
		line := strings.Repeat("0", 64) + "  " + name + "\n"
		if err := os.WriteFile(filepath.Join(dir, SumsFile), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := CheckSeal(dir); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("SHA256SUMS naming %q: CheckSeal = %v", name, err)
		}
	}
}

// A failed run's bundle with evidence fails Verify for its failed spec, not for its evidence.
func TestVerifyJudgesABundleWithEvidenceByItsSpecs(t *testing.T) {
	dir, exp := writeBundle(t, nil)
	writeEvidence(t, dir)
	if err := Seal(dir); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, exp); err != nil {
		t.Fatalf("bundle with evidence rejected: %v", err)
	}
}
