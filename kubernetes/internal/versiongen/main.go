// Command versiongen writes package kubernetes's table of what each Kubernetes minor version
// serves (zz_generated_versions.go): the group/versions each pod-carrying kind is served at,
// and, for every API type those kinds reach, the minor versions that have each of its fields.
//
// It reads the OpenAPI v3 documents Kubernetes publishes with each release
// (api/openapi-spec/v3/*.json of the k8s.io/kubernetes module), which it fetches with
// `go mod download -json k8s.io/kubernetes@vX` (the module cache keeps them), for every minor
// from -oldest to the minor of the k8s.io/api the build uses (the newest, which the API types of
// zz_generated_api.go describe), each at its newest patch release the module proxy lists, or the
// releases -releases names (the test that the table is up to date names the ones it was made
// from, and reads them from the module cache). It runs under go generate only, never at build.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// podKinds are the kinds whose served versions and reachable types the table describes: the
// kinds package kubernetes reads (kinds.go).
var podKinds = []string{
	"Pod", "PodTemplate", "ReplicationController",
	"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob",
}

// docName matches an OpenAPI v3 document of one group/version: api__v1_openapi.json is the
// core group's, apis__apps__v1_openapi.json the apps group's.
var docName = regexp.MustCompile(`^(?:api|apis__([a-z0-9.-]+))__([a-z0-9]+)_openapi\.json$`)

const schemaRef = "#/components/schemas/"

// release is one minor version's documents.
type release struct {
	minor   int
	version string // the k8s.io/kubernetes module version read
	dir     string // its api/openapi-spec/v3
}

// span is the minors from first to last, inclusive.
type span struct{ first, last int }

type fieldKey struct{ typ, field string }

func main() {
	out := flag.String("o", "zz_generated_versions.go", "output file")
	oldest := flag.Int("oldest", 29, "oldest Kubernetes minor version (1.N) to describe")
	pinned := flag.String("releases", "", "comma-separated k8s.io/kubernetes versions to read, one per minor, oldest first (default: the newest patch of each minor from -oldest)")
	flag.Parse()
	var releases []release
	var err error
	if *pinned != "" {
		releases, err = download(strings.Split(*pinned, ","))
	} else {
		releases, err = findReleases(*oldest)
	}
	if err != nil {
		log.Fatal(err)
	}
	served := map[string]map[string][]int{} // kind -> group/version -> minors
	fields := map[fieldKey][]int{}          // short type name, JSON field -> minors
	for _, r := range releases {
		if err := r.read(served, fields); err != nil {
			log.Fatalf("k8s.io/kubernetes@%s: %v", r.version, err)
		}
	}
	data, err := render(releases, served, fields)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// goCommand runs the go command outside any module (so that it never edits go.mod) and returns
// its standard output.
func goCommand(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// newestMinor is the minor of the k8s.io/api module the build uses (v0.N.x is Kubernetes 1.N).
func newestMinor() (int, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/api").Output()
	if err != nil {
		return 0, fmt.Errorf("go list -m k8s.io/api: %w", err)
	}
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".")
	if len(parts) < 2 {
		return 0, fmt.Errorf("k8s.io/api version %q", out)
	}
	return strconv.Atoi(parts[1])
}

// findReleases picks the newest patch release of each minor from oldest to the build's newest
// and downloads them.
func findReleases(oldest int) ([]release, error) {
	newest, err := newestMinor()
	if err != nil {
		return nil, err
	}
	out, err := goCommand("list", "-m", "-versions", "k8s.io/kubernetes")
	if err != nil {
		return nil, err
	}
	patch := map[int]int{}
	for _, v := range strings.Fields(string(out))[1:] {
		parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
		if len(parts) != 3 || parts[0] != "1" {
			continue // a pre-release with a dot (v1.30.0-rc.1)
		}
		minor, err1 := strconv.Atoi(parts[1])
		p, err2 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil {
			continue // a pre-release without one (v1.30.0-alpha)
		}
		if cur, ok := patch[minor]; !ok || p > cur {
			patch[minor] = p
		}
	}
	var versions []string
	for minor := oldest; minor <= newest; minor++ {
		p, ok := patch[minor]
		if !ok {
			return nil, fmt.Errorf("the module proxy lists no release of k8s.io/kubernetes 1.%d", minor)
		}
		versions = append(versions, fmt.Sprintf("v1.%d.%d", minor, p))
	}
	return download(versions)
}

// download fetches the releases (v1.N.P, one per minor, oldest first) into the module cache.
func download(versions []string) ([]release, error) {
	var rs []release
	for i, version := range versions {
		var minor, p int
		if _, err := fmt.Sscanf(version, "v1.%d.%d", &minor, &p); err != nil {
			return nil, fmt.Errorf("release %q: want v1.N.P", version)
		}
		if i > 0 && minor != rs[i-1].minor+1 {
			return nil, fmt.Errorf("release %s does not follow 1.%d: one release per minor, oldest first", version, rs[i-1].minor)
		}
		out, err := goCommand("mod", "download", "-json", "k8s.io/kubernetes@"+version)
		if err != nil {
			return nil, err
		}
		var m struct{ Dir string }
		if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
			return nil, fmt.Errorf("go mod download k8s.io/kubernetes@%s: no directory (%v)", version, err)
		}
		rs = append(rs, release{minor: minor, version: version, dir: filepath.Join(m.Dir, "api", "openapi-spec", "v3")})
	}
	return rs, nil
}

type gvk struct{ Group, Version, Kind string }

type schema struct {
	Properties map[string]json.RawMessage `json:"properties"`
	GVK        []gvk                      `json:"x-kubernetes-group-version-kind"`
	raw        json.RawMessage
}

// read adds what the release's documents serve to served and fields.
func (r release) read(served map[string]map[string][]int, fields map[fieldKey][]int) error {
	names, err := filepath.Glob(filepath.Join(r.dir, "*_openapi.json"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("no OpenAPI documents in %s", r.dir)
	}
	schemas := map[string]*schema{}
	var roots []string
	for _, name := range names {
		m := docName.FindStringSubmatch(filepath.Base(name))
		if m == nil {
			continue // a group's discovery document (apis__apps_openapi.json) and the like
		}
		group, version := m[1], m[2]
		doc, err := readDoc(name)
		if err != nil {
			return err
		}
		for full, s := range doc {
			if _, seen := schemas[full]; !seen {
				schemas[full] = s
			}
			for _, g := range s.GVK {
				if g.Group != group || g.Version != version || !slices.Contains(podKinds, g.Kind) {
					continue
				}
				gv := g.Version
				if g.Group != "" {
					gv = g.Group + "/" + g.Version
				}
				if served[g.Kind] == nil {
					served[g.Kind] = map[string][]int{}
				}
				if !slices.Contains(served[g.Kind][gv], r.minor) {
					served[g.Kind][gv] = append(served[g.Kind][gv], r.minor)
					roots = append(roots, full)
				}
			}
		}
	}
	for _, k := range podKinds {
		if served[k] == nil {
			return fmt.Errorf("no document serves %s", k)
		}
	}
	// Every object type the kinds reach, by its short name (io.k8s.api.core.v1.PodSpec is
	// PodSpec), which is the name package kubernetes's API types have.
	short := map[string]string{}
	seen := map[string]bool{}
	var visit func(full string) error
	visit = func(full string) error {
		if seen[full] {
			return nil
		}
		seen[full] = true
		s := schemas[full]
		if s == nil {
			return fmt.Errorf("no schema %s", full)
		}
		if len(s.Properties) == 0 {
			return nil // a scalar (Quantity, Time) or a free-form object
		}
		name := full[strings.LastIndex(full, ".")+1:]
		if prev, ok := short[name]; ok && prev != full {
			return fmt.Errorf("two types are both named %s: %s and %s", name, prev, full)
		}
		short[name] = full
		for f := range s.Properties {
			k := fieldKey{name, f}
			if !slices.Contains(fields[k], r.minor) {
				fields[k] = append(fields[k], r.minor)
			}
		}
		for _, ref := range refs(s.raw) {
			if err := visit(ref); err != nil {
				return err
			}
		}
		return nil
	}
	for _, root := range roots {
		if err := visit(root); err != nil {
			return err
		}
	}
	return nil
}

func readDoc(name string) (map[string]*schema, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := map[string]*schema{}
	for full, raw := range doc.Components.Schemas {
		s := &schema{raw: raw}
		if err := json.Unmarshal(raw, s); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, full, err)
		}
		out[full] = s
	}
	return out, nil
}

// refs are the schemas a schema refers to, wherever in it ($ref in a property, in allOf, in an
// array's items or a map's additionalProperties).
func refs(raw json.RawMessage) []string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				out = append(out, strings.TrimPrefix(r, schemaRef))
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}

// spanOf turns the sorted minors that have something into one span; a gap (a field removed and
// added again) is not expected and stops the generator.
func spanOf(what string, minors []int) span {
	slices.Sort(minors)
	for i := 1; i < len(minors); i++ {
		if minors[i] != minors[i-1]+1 {
			log.Fatalf("%s is in 1.%d and 1.%d but not between: the table holds one span", what, minors[i-1], minors[i])
		}
	}
	return span{minors[0], minors[len(minors)-1]}
}

func render(rs []release, served map[string]map[string][]int, fields map[fieldKey][]int) ([]byte, error) {
	var b bytes.Buffer
	var sources []string
	for _, r := range rs {
		sources = append(sources, r.version)
	}
	fmt.Fprintf(&b, "// Code generated by kubernetes/internal/versiongen from the OpenAPI v3 documents (api/openapi-spec/v3)\n")
	fmt.Fprintf(&b, "// of k8s.io/kubernetes %s; DO NOT EDIT.\n\n", strings.Join(sources, ", "))
	b.WriteString("package kubernetes\n\n")
	fmt.Fprintf(&b, "// oldestMinor and newestMinor bound the Kubernetes minor versions (1.N) the tables describe.\nconst (\n\toldestMinor = %d\n\tnewestMinor = %d\n)\n\n", rs[0].minor, rs[len(rs)-1].minor)
	b.WriteString("// openAPISources are the releases of k8s.io/kubernetes whose OpenAPI documents the tables were read from, oldest first.\nvar openAPISources = [...]string{")
	for _, s := range sources {
		fmt.Fprintf(&b, "%q, ", s)
	}
	b.WriteString("}\n\n")

	b.WriteString("// servedVersions are the group/versions each kind is served at, and in which minors.\nvar servedVersions = [...]servedVersion{\n")
	kindsSorted := slices.Sorted(func(yield func(string) bool) {
		for k := range served {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range kindsSorted {
		gvs := slices.Sorted(func(yield func(string) bool) {
			for gv := range served[k] {
				if !yield(gv) {
					return
				}
			}
		})
		for _, gv := range gvs {
			s := spanOf(k+" at "+gv, served[k][gv])
			fmt.Fprintf(&b, "\t{%q, %q, minors{%d, %d}},\n", k, gv, s.first, s.last)
		}
	}
	b.WriteString("}\n\n")

	keys := make([]fieldKey, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].typ != keys[j].typ {
			return keys[i].typ < keys[j].typ
		}
		return keys[i].field < keys[j].field
	})
	b.WriteString("// fieldVersions are the fields of every API type the kinds reach, with the minors that have\n// each, sorted by type and field.\nvar fieldVersions = [...]fieldVersion{\n")
	for _, k := range keys {
		s := spanOf(k.typ+"."+k.field, fields[k])
		fmt.Fprintf(&b, "\t{%q, %q, minors{%d, %d}},\n", k.typ, k.field, s.first, s.last)
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
