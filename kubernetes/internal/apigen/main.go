// Command apigen writes package kubernetes's mirror of the Kubernetes API types a pod manifest
// uses (zz_generated_api.go): every struct type reachable from v1 Pod, the apps/v1 workloads and
// the batch/v1 Job and CronJob, with their JSON names, which fields the API requires, and the
// closed value sets of their enumerations. It reads the types of k8s.io/api by reflection and
// their source (for the +enum, +optional and +required markers and the enumeration constants)
// with go/parser, so the mirror is derived from the Kubernetes API, never written by hand.
//
// podspec does not link k8s.io/api: it would add about 11 MB and 2-14 ms of package
// initialisation to every podspec command, the runtime verbs included (docs/kubernetes.md).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Packages whose source holds the markers of the types the roots reach.
var sourcePackages = []string{
	"k8s.io/api/core/v1", "k8s.io/api/apps/v1", "k8s.io/api/batch/v1",
	"k8s.io/apimachinery/pkg/apis/meta/v1",
}

// special types are not mirrored field by field: package kubernetes has its own type for each,
// with the JSON forms the API accepts.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "Quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "IntOrString",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "Time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "Duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "RawJSON",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "RawJSON",
}

// closed lists string types without a +enum marker whose values the API server's validation
// nonetheless restricts to the type's declared constants.
var closed = map[string]bool{
	"k8s.io/api/core/v1.ContainerRestartPolicy":                  true,
	"k8s.io/api/core/v1.ContainerRestartRuleAction":              true,
	"k8s.io/api/core/v1.ContainerRestartRuleOnExitCodesOperator": true,
}

type marker struct {
	optional, required bool
}

type source struct {
	enums   map[string][]string          // "pkg.Type" -> values
	isEnum  map[string]bool              // "pkg.Type" with +enum
	markers map[string]map[string]marker // "pkg.Type" -> Go field name -> markers
}

func main() {
	out := flag.String("o", "zz_generated_api.go", "output file")
	flag.Parse()
	src, err := readSources()
	if err != nil {
		log.Fatal(err)
	}
	g := &generator{src: src, names: map[string]reflect.Type{}, done: map[reflect.Type]bool{}}
	roots := []reflect.Type{
		reflect.TypeFor[corev1.Pod](), reflect.TypeFor[corev1.PodTemplateSpec](),
		reflect.TypeFor[appsv1.Deployment](), reflect.TypeFor[appsv1.StatefulSet](),
		reflect.TypeFor[appsv1.DaemonSet](), reflect.TypeFor[appsv1.ReplicaSet](),
		reflect.TypeFor[batchv1.Job](), reflect.TypeFor[batchv1.CronJob](),
		reflect.TypeFor[corev1.ReplicationController](), reflect.TypeFor[corev1.PodTemplate](),
	}
	for _, t := range roots {
		g.visit(t)
	}
	data, err := g.render()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// moduleVersion asks the go command which version of k8s.io/api the build uses.
func moduleVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/api").Output()
	if err != nil {
		log.Fatalf("go list -m k8s.io/api: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func readSources() (*source, error) {
	s := &source{enums: map[string][]string{}, isEnum: map[string]bool{}, markers: map[string]map[string]marker{}}
	for _, pkg := range sourcePackages {
		// go list names the files of the build (build tags applied, tests left out).
		out, err := exec.Command("go", "list", "-f", "{{.Dir}}{{range .GoFiles}}\n{{.}}{{end}}", pkg).Output()
		if err != nil {
			return nil, fmt.Errorf("go list %s: %w", pkg, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		dir := lines[0]
		fset := token.NewFileSet()
		for _, name := range lines[1:] {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", dir, err)
			}
			s.read(pkg, f)
		}
	}
	return s, nil
}

func (s *source) read(pkg string, f *ast.File) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch sp := spec.(type) {
			case *ast.TypeSpec:
				name := pkg + "." + sp.Name.Name
				doc := sp.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if hasMarker(doc, "+enum") {
					s.isEnum[name] = true
				}
				st, ok := sp.Type.(*ast.StructType)
				if !ok {
					continue
				}
				fields := map[string]marker{}
				for _, fl := range st.Fields.List {
					m := marker{
						optional: hasMarker(fl.Doc, "+optional") || hasMarker(fl.Doc, "+k8s:optional"),
						required: hasMarker(fl.Doc, "+required") || hasMarker(fl.Doc, "+k8s:required"),
					}
					for _, n := range fl.Names {
						fields[n.Name] = m
					}
				}
				s.markers[name] = fields
			case *ast.ValueSpec:
				if gd.Tok != token.CONST || sp.Type == nil {
					continue
				}
				id, ok := sp.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range sp.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						val, err := strconv.Unquote(lit.Value)
						if err == nil {
							key := pkg + "." + id.Name
							s.enums[key] = append(s.enums[key], val)
						}
					}
				}
			}
		}
	}
}

func hasMarker(cg *ast.CommentGroup, m string) bool {
	if cg == nil {
		return false
	}
	for _, c := range cg.List {
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if text == m || strings.HasPrefix(text, m+"=") {
			return true
		}
	}
	return false
}

type generator struct {
	src   *source
	names map[string]reflect.Type // generated name -> type
	order []reflect.Type
	done  map[reflect.Type]bool
	enums []reflect.Type
}

func fullName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func (g *generator) claim(t reflect.Type) string {
	name := t.Name()
	if prev, ok := g.names[name]; ok && prev != t {
		log.Fatalf("two API types are both named %s: %s and %s", name, fullName(prev), fullName(t))
	}
	g.names[name] = t
	return name
}

// visit records t and every struct and enumeration type it reaches.
func (g *generator) visit(t reflect.Type) {
	if g.done[t] {
		return
	}
	g.done[t] = true
	if _, ok := special[fullName(t)]; ok && t.Name() != "" {
		return
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Map {
			g.visit(t.Key())
		}
		g.visit(t.Elem())
	case reflect.Struct:
		g.claim(t)
		g.order = append(g.order, t)
		for i := range t.NumField() {
			g.visit(t.Field(i).Type)
		}
	case reflect.String:
		if t.Name() != "" && t.PkgPath() != "" && g.isEnum(t) {
			g.claim(t)
			g.enums = append(g.enums, t)
		}
	}
}

func (g *generator) isEnum(t reflect.Type) bool {
	n := fullName(t)
	return (g.src.isEnum[n] || closed[n]) && len(g.src.enums[n]) > 0
}

// goType is the mirror's Go type for t.
func (g *generator) goType(t reflect.Type) string {
	if s, ok := special[fullName(t)]; ok && t.Name() != "" {
		return s
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.goType(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Bytes"
		}
		return "[]" + g.goType(t.Elem())
	case reflect.Map:
		return "map[" + g.goType(t.Key()) + "]" + g.goType(t.Elem())
	case reflect.Struct:
		return t.Name()
	case reflect.String:
		if t.Name() != "" && t.PkgPath() != "" && g.isEnum(t) {
			return t.Name()
		}
		return "string"
	case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Float64, reflect.Int:
		return t.Kind().String()
	}
	log.Fatalf("no mirror for %s (kind %s)", t, t.Kind())
	return ""
}

func (g *generator) render() ([]byte, error) {
	var b bytes.Buffer
	version := moduleVersion()
	fmt.Fprintf(&b, "// Code generated by kubernetes/internal/apigen from k8s.io/api %s; DO NOT EDIT.\n\n", version)
	b.WriteString("package kubernetes\n\n")
	fmt.Fprintf(&b, "// APIModuleVersion is the version of k8s.io/api the mirror was generated from.\nconst APIModuleVersion = %q\n\n", version)
	for _, t := range g.order {
		fmt.Fprintf(&b, "// %s mirrors %s.\ntype %s struct {\n", t.Name(), fullName(t), t.Name())
		markers := g.src.markers[fullName(t)]
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				fmt.Fprintf(&b, "\t%s\n", g.goType(f.Type))
				continue
			}
			if name == "" {
				name = f.Name
			}
			m := markers[f.Name]
			omitempty := slices.Contains(strings.Split(opts, ","), "omitempty")
			required := m.required || (!m.optional && !omitempty)
			jsonTag := name
			if omitempty {
				jsonTag += ",omitempty"
				if f.Type.Kind() == reflect.Struct && special[fullName(f.Type)] == "" {
					// An empty object is left out of what podspec writes (encoding/json's
					// omitempty keeps it); the API reads both the same.
					jsonTag += ",omitzero"
				}
			}
			kube := ""
			if required {
				kube = ` kube:"required"`
			}
			fmt.Fprintf(&b, "\t%s %s `json:%q%s`\n", f.Name, g.goType(f.Type), jsonTag, kube)
		}
		b.WriteString("}\n\n")
	}
	sort.Slice(g.enums, func(i, j int) bool { return g.enums[i].Name() < g.enums[j].Name() })
	for _, t := range g.enums {
		vals := g.src.enums[fullName(t)]
		fmt.Fprintf(&b, "// %s mirrors %s, a closed set of values.\ntype %s string\n\n", t.Name(), fullName(t), t.Name())
		fmt.Fprintf(&b, "func (%s) values() []string {\n\treturn []string{", t.Name())
		for i, v := range vals {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", v)
		}
		b.WriteString("}\n}\n\n")
	}
	return format.Source(b.Bytes())
}
