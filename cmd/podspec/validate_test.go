package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
)

// execute runs the podspec command line in-process and returns its exit status and stdout.
func execute(t *testing.T, stdin string, args ...string) (int, string) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&bytes.Buffer{})
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return cli.ExitOK, out.String()
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		return ee.Code, out.String()
	}
	return cli.ExitUsage, out.String()
}

const cleanPod = `apiVersion: podspec.dev/v1alpha1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: "oci:images/busybox:latest"}]
`

func TestValidateExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean.yaml", cleanPod)
	warn := write("warn.yaml", strings.Replace(cleanPod, "spec:", "spec:\n  terminationGracePeriodSeconds: 030", 1))
	bad := write("bad.yaml", strings.Replace(cleanPod, "name: web", "name: Web", 1))
	renamed := write("renamed.yaml", strings.Replace(cleanPod, "name: web", "name: web2", 1))
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"a clean file exits 0", []string{"validate", clean}, cli.ExitOK},
		{"warnings only exit 0", []string{"validate", warn}, cli.ExitOK},
		{"warnings exit 1 with --fail-on warning", []string{"validate", "--fail-on", "warning", warn}, cli.ExitFindings},
		{"an error exits 1", []string{"validate", clean, bad}, cli.ExitFindings},
		{"a missing file exits 3", []string{"validate", filepath.Join(dir, "nope.yaml")}, cli.ExitIO},
		{"no path is a usage error", []string{"validate"}, cli.ExitUsage},
		{"an unknown format is a usage error", []string{"validate", "-o", "xml", clean}, cli.ExitUsage},
		{"an unknown engine is a usage error", []string{"validate", "--engine", "magic", clean}, cli.ExitUsage},
		{"an unknown flag is a usage error", []string{"validate", "--frobnicate", clean}, cli.ExitUsage},
		{"--update-from with two files is a usage error", []string{"validate", "--update-from", clean, clean, bad}, cli.ExitUsage},
		{"an illegal update exits 1", []string{"validate", "--update-from", clean, renamed}, cli.ExitFindings},
		{"a legal update exits 0", []string{"validate", "--update-from", clean, clean}, cli.ExitOK},
		{"an unreadable old manifest exits 3", []string{"validate", "--update-from", filepath.Join(dir, "nope.yaml"), clean}, cli.ExitIO},
		{"--workers 0 is a usage error", []string{"validate", "--workers", "0", clean}, cli.ExitUsage},
		{"negative --workers is a usage error", []string{"validate", "--workers", "-2", clean}, cli.ExitUsage},
		{"--workers 1 is fine", []string{"validate", "--workers", "1", clean}, cli.ExitOK},
		{"/dev/zero is refused at the size limit, not read forever", []string{"validate", "/dev/zero"}, cli.ExitFindings},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if code, out := execute(t, "", tc.args...); code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
		})
	}
}

func TestValidateFormats(t *testing.T) {
	code, out := execute(t, strings.Replace(cleanPod, "name: web", "name: Web", 1), "validate", "-o", "sarif", "-")
	if code != cli.ExitFindings {
		t.Errorf("exit %d", code)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("SARIF on stdout is not JSON: %v\n%s", err, out)
	}
	r := log.Runs[0].Results[0]
	if log.Version != "2.1.0" || r.RuleID != "ID-001" || r.Locations[0].PhysicalLocation.Region.StartLine != 3 {
		t.Errorf("SARIF result %+v", r)
	}

	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	code, out = execute(t, cleanPod, "validate", "-o", "json", "--output", report, "-")
	if code != cli.ExitOK || out != "" {
		t.Errorf("exit %d, stdout %q (the report goes to --output)", code, out)
	}
	data, err := os.ReadFile(report)
	if err != nil || !strings.Contains(string(data), `"version": "podspec.dev/validate-report/v1"`) {
		t.Errorf("report file: %v\n%s", err, data)
	}

	if code, out := execute(t, "", "rules", "-o", "json"); code != cli.ExitOK || !strings.Contains(out, `"MAN-009"`) {
		t.Errorf("rules: exit %d\n%s", code, out)
	}
	if code, out := execute(t, "", "schema", "Notification"); code != cli.ExitOK || !strings.Contains(out, "2020-12") {
		t.Errorf("schema: exit %d\n%.200s", code, out)
	}
}

func TestRuntimeVerbsReadAtMostTheManifestLimit(t *testing.T) {
	_, err := readManifest("/dev/zero")
	var re *rtError
	if !errors.As(err, &re) || re.code != runtimev1.CodeInvalidManifest || !strings.Contains(err.Error(), "more than 4194304 bytes") {
		t.Errorf("readManifest(/dev/zero) = %v, want InvalidManifest: more than the limit", err)
	}
}

func TestRunRefusesNumbersBeyondTheirFieldsWithTheValidatorsFindings(t *testing.T) {
	for _, tc := range []struct{ value, rule string }{
		{"10000000000", "MAN-012"},
		{"99999999999999999999999999999999999", "MAN-012"},
		{"1e400", "MAN-012"},
	} {
		m := strings.Replace(cleanPod, "spec:", "spec:\n  terminationGracePeriodSeconds: "+tc.value, 1)
		_, err := loadPod("pod.yaml", []byte(m))
		var re *rtError
		if !errors.As(err, &re) || re.code != runtimev1.CodeInvalidManifest || len(re.findings) != 1 ||
			re.findings[0].Rule != tc.rule || re.findings[0].Pos.Line != 5 || re.findings[0].Pos.Column != 34 {
			t.Errorf("grace %s: %v %+v, want InvalidManifest with %s at 5:34", tc.value, err, re, tc.rule)
		}
	}
}

// --kubernetes-version checks Kubernetes objects against that version's fields and served API
// versions: a Pod field 1.29 does not have (pod-level resources, 1.32) is KUBE-025 at its key
// on 1.29 and fine on the default version, an apps/v1 Deployment is accepted on 1.29, and a
// version podspec does not know is a usage error.
func TestValidateKubernetesVersion(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "k8s.yaml")
	if err := os.WriteFile(file, []byte(`apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  resources:
    limits: {cpu: "2"}
  containers: [{name: app, image: nginx:1.27}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := execute(t, "", "validate", "-o", "json", "--kubernetes-version", "1.29", file)
	var rep struct {
		Results []struct {
			Kind     string
			Findings []struct {
				Rule, Path, Message string
				Position            struct{ Line, Column int }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != cli.ExitFindings || len(rep.Results) != 2 || len(rep.Results[0].Findings) != 1 || len(rep.Results[1].Findings) != 0 {
		t.Fatalf("1.29: exit %d, want 1 with one finding on the Pod and none on the Deployment\n%s", code, out)
	}
	f := rep.Results[0].Findings[0]
	if f.Rule != "KUBE-025" || f.Path != "spec.resources" || f.Position.Line != 5 || f.Position.Column != 3 ||
		!strings.Contains(f.Message, "Kubernetes 1.29") || !strings.Contains(f.Message, "1.32") {
		t.Errorf("1.29: finding %+v, want KUBE-025 at spec.resources 5:3 naming 1.29 and 1.32", f)
	}
	for _, args := range [][]string{{"validate", file}, {"validate", "--kubernetes-version", "v1.32.4", file}} {
		if code, out := execute(t, "", args...); code != cli.ExitOK {
			t.Errorf("%v: exit %d, want 0\n%s", args, code, out)
		}
	}
	for _, bad := range []string{"1.20", "1.99", "latest"} {
		if code, _ := execute(t, "", "validate", "--kubernetes-version", bad, file); code != cli.ExitUsage {
			t.Errorf("--kubernetes-version %s: exit %d, want %d", bad, code, cli.ExitUsage)
		}
	}
}
