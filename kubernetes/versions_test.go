package kubernetes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/validation/field"
)

// The newest version of the tables is the one the API types describe: every field of every API
// type the kinds reach is in the table for it, and every field the table gives the newest
// version is in the API types (fields of types the OpenAPI documents do not describe, such as a
// List's metadata, are outside both).
func TestVersionTableHasEveryFieldOfTheAPITypes(t *testing.T) {
	types := map[string]bool{}
	for rt, info := range structInfos() {
		types[rt.Name()] = true
		for name := range info.fields {
			m, ok := info.minors[name]
			if !ok || !m.has(Newest()) {
				t.Errorf("%s.%s: the table gives %v (listed %t), want a span that has %s", rt.Name(), name, m, ok, Newest())
			}
		}
	}
	byName := map[string]*structInfo{}
	for rt, info := range structInfos() {
		byName[rt.Name()] = info
	}
	for _, f := range fieldVersions {
		if !f.minors.has(Newest()) {
			continue
		}
		info := byName[f.typ]
		if info == nil {
			t.Errorf("the table has %s.%s in %s, the API types have no %s", f.typ, f.field, Newest(), f.typ)
			continue
		}
		if _, ok := info.fields[f.field]; !ok {
			t.Errorf("the table has %s.%s in %s, the API types do not", f.typ, f.field, Newest())
		}
	}
}

// The table is sorted, as typeMinors's binary search needs, and every span is within the
// versions it describes.
func TestVersionTableIsSortedAndInRange(t *testing.T) {
	if !slices.IsSortedFunc(fieldVersions[:], func(a, b fieldVersion) int {
		return strings.Compare(a.typ+"\x00"+a.field, b.typ+"\x00"+b.field)
	}) {
		t.Error("fieldVersions is not sorted by type and field")
	}
	for _, f := range fieldVersions {
		if f.minors.first < oldestMinor || f.minors.last > newestMinor || f.minors.first > f.minors.last {
			t.Errorf("%s.%s: span %v outside 1.%d to 1.%d", f.typ, f.field, f.minors, oldestMinor, newestMinor)
		}
	}
	if newestMinor-oldestMinor+1 < 6 || len(openAPISources) != newestMinor-oldestMinor+1 {
		t.Errorf("the tables describe 1.%d to 1.%d from %d releases, want at least six minors, one release each", oldestMinor, newestMinor, len(openAPISources))
	}
}

// Fields Kubernetes added or removed in the versions described, as its OpenAPI documents and
// release notes have them: the table has each in exactly those minors.
func TestVersionTableKnowsFieldsAddedAndRemoved(t *testing.T) {
	cases := []struct {
		typ, field  string
		first, last uint8
	}{
		{"PodSpec", "resources", 32, newestMinor},        // pod-level resources, KEP-2837
		{"PodSpec", "hostnameOverride", 34, newestMinor}, // KEP-4762
		{"Container", "restartPolicyRules", 34, newestMinor},
		{"Lifecycle", "stopSignal", 33, newestMinor}, // KEP-4960
		{"PodSecurityContext", "appArmorProfile", 30, newestMinor},
		{"PodResourceClaim", "source", oldestMinor, 30}, // DRA's ClaimSource, replaced in 1.31
		{"PodSpec", "containers", oldestMinor, newestMinor},
	}
	for _, c := range cases {
		m, ok := typeMinors(c.typ)[c.field]
		if !ok || m != (minors{c.first, c.last}) {
			t.Errorf("%s.%s: the table gives 1.%d to 1.%d (listed %t), want 1.%d to 1.%d", c.typ, c.field, m.first, m.last, ok, c.first, c.last)
		}
	}
}

// Every kind podspec reads is served at the group/version its API type is for, in every version
// described.
func TestEveryKindIsServedInEveryVersion(t *testing.T) {
	for _, k := range kinds {
		for m := uint8(oldestMinor); m <= newestMinor; m++ {
			if got := servedAt(k.kind, Version{m}); len(got) == 0 {
				t.Errorf("1.%d serves %s at no apiVersion", m, k.kind)
			}
		}
		if ServedAPIVersion(k.kind) == "" {
			t.Errorf("ServedAPIVersion(%s) is empty", k.kind)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"1.29": "1.29", "v1.29": "1.29", "1.29.6": "1.29", "v1.37.2": "1.37", " 1.33 ": "1.33"} {
		v, err := ParseVersion(in)
		if err != nil || v.String() != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"1.20", "1.38", "2.29", "", "1", "1.x", "1.29.6.1", "latest", "1.-29"} {
		_, err := ParseVersion(in)
		if err == nil || !strings.Contains(err.Error(), strings.Join(Versions(), ", ")) {
			t.Errorf("ParseVersion(%q): error %v, want one that lists the known versions", in, err)
		}
	}
	if (Version{}).String() != Newest().String() {
		t.Errorf("the zero Version is %s, want the newest, %s", Version{}, Newest())
	}
}

// decodeAt decodes a Pod with the given spec at version v and returns the rules of its errors
// with their paths.
func decodeAt(t *testing.T, v string, spec map[string]any) []string {
	t.Helper()
	ver, err := ParseVersion(v)
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}, "spec": spec}
	_, errs := Decode(doc, ver)
	return describe(errs)
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Rule+" "+e.Field.String())
	}
	return out
}

func containers() []any {
	return []any{map[string]any{"name": "app", "image": "app:1"}}
}

// A field is KUBE-025 in a version before the one that added it and accepted from that version
// on; what is in it is reported once, at the field.
func TestDecodeReportsAFieldTheVersionLacks(t *testing.T) {
	spec := map[string]any{"containers": containers(), "resources": map[string]any{"limits": map[string]any{"cpu": "1"}}}
	if got := decodeAt(t, "1.31", spec); !slices.Equal(got, []string{"KUBE-025 spec.resources"}) {
		t.Errorf("1.31: %v, want KUBE-025 at spec.resources", got)
	}
	for _, v := range []string{"1.32", "1.37"} {
		if got := decodeAt(t, v, spec); len(got) != 0 {
			t.Errorf("%s: %v, want none", v, got)
		}
	}
	// A claim's source, which 1.31 replaced, is accepted by 1.29 and 1.30 and KUBE-025 after.
	claims := map[string]any{"containers": containers(), "resourceClaims": []any{
		map[string]any{"name": "gpu", "source": map[string]any{"resourceClaimName": "gpu-claim"}}}}
	if got := decodeAt(t, "1.30", claims); len(got) != 0 {
		t.Errorf("1.30: %v, want none", got)
	}
	if got := decodeAt(t, "1.31", claims); !slices.Equal(got, []string{"KUBE-025 spec.resourceClaims[0].source"}) {
		t.Errorf("1.31: %v, want KUBE-025 at spec.resourceClaims[0].source", got)
	}
	// A field no version has stays KUBE-002, naming the version.
	_, errs := Decode(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"containers": containers(), "hostnam": "x"}}, Version{29})
	if got := describe(errs); !slices.Equal(got, []string{"KUBE-002 spec.hostnam"}) || !strings.Contains(errs[0].Detail, "Kubernetes 1.29") {
		t.Errorf("a misspelt field: %v %v, want KUBE-002 naming 1.29", got, errs)
	}
}

// Every minor's table names the API version it serves a kind at, in KUBE-001's message.
func TestDecodeNamesTheVersionInAnUnservedAPIVersion(t *testing.T) {
	doc := map[string]any{"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": map[string]any{"name": "d"}}
	_, errs := Decode(doc, Version{30})
	want := "Kubernetes 1.30 serves Deployment at apiVersion apps/v1, not extensions/v1beta1"
	if len(errs) == 0 || errs[0].Rule != ruleKind || !strings.Contains(errs[0].Detail, want) {
		t.Errorf("errors %v, want KUBE-001 %q", errs, want)
	}
}

func ExampleParseVersion() {
	v, err := ParseVersion("v1.29.6")
	fmt.Println(v, err)
	_, err = ParseVersion("1.20")
	fmt.Println(err)
	// Output:
	// 1.29 <nil>
	// podspec knows the API of Kubernetes 1.29, 1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37, not of 1.20
}

// The table is what internal/versiongen writes from the releases it names, when their OpenAPI
// documents are in the module cache (the generator needs the network to fetch them otherwise,
// and the test never does: GOPROXY=off).
func TestGeneratedVersionTableIsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range openAPISources {
		if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(cache)), "k8s.io", "kubernetes@"+r, "api", "openapi-spec", "v3")); err != nil {
			t.Skipf("k8s.io/kubernetes@%s is not in the module cache (go mod download k8s.io/kubernetes@%s)", r, r)
		}
	}
	requireGenerated(t, "zz_generated_versions.go", []string{"GOPROXY=off"}, "./internal/versiongen", "-releases", strings.Join(openAPISources[:], ","))
}
