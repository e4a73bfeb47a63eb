// Command gen writes the JSON Schema files of package schema from the CUE definitions of
// package cue, the single source of truth for the API's structural rules.
//
// It runs the CUE library's own JSON Schema generator (cuelang.org/go/encoding/jsonschema, what
// `cue def --out jsonschema` uses) in process, so neither generating nor the sync test needs the
// cue command. One rewrite follows: the generator spells a bounded integer as
// allOf[{type: number}, {minimum}, {type: integer, minimum, maximum}]; those purely numeric
// allOf lists are merged into one schema so that editors and error messages see
// {type: integer, minimum, maximum}. Nothing else is changed.
//
// Usage (from package schema's directory, via go generate): go run ./internal/gen -cue ../cue -out .
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	cuelang "cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	"cuelang.org/go/encoding/jsonschema"
)

// kinds are the definitions to generate a schema for; the schema of kind K is generated from #K.
var kinds = []string{"Pod", "Notification", "PodStatus", "NotificationStatus", "PodNotificationRecord", "Event"}

// baseID is the $id prefix of the generated schemas. It is a name, never fetched.
const baseID = "https://podspec.dev/schemas/v1alpha1/"

// FileName returns the schema file name of a kind: "PodStatus" → "pod-status.json".
func FileName(kind string) string {
	var b strings.Builder
	for i, r := range kind {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String() + ".json"
}

// load builds the CUE package in dir (the .cue files of package cue). It reads the files from
// disk rather than importing package cue, so that the generator never depends on the code that
// embeds its own output.
func load(ctx *cuelang.Context, dir string) (cuelang.Value, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.cue"))
	if err != nil {
		return cuelang.Value{}, fmt.Errorf("list CUE files in %s: %w", dir, err)
	}
	if len(names) == 0 {
		return cuelang.Value{}, fmt.Errorf("no CUE files in %s", dir)
	}
	sort.Strings(names)
	inst := build.NewContext().NewInstance("podspec.dev/podspec/cue", nil)
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return cuelang.Value{}, fmt.Errorf("read %s: %w", name, err)
		}
		f, err := parser.ParseFile(filepath.Base(name), src, parser.ParseComments)
		if err != nil {
			return cuelang.Value{}, fmt.Errorf("parse %s: %w", name, err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return cuelang.Value{}, fmt.Errorf("add %s: %w", name, err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cuelang.Value{}, fmt.Errorf("build CUE definitions in %s: %w", dir, err)
	}
	return v, nil
}

// generate returns the JSON Schema of every kind, keyed by file name, from the CUE package in
// dir.
func generate(dir string) (map[string][]byte, error) {
	ctx := cuecontext.New()
	root, err := load(ctx, dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte)
	for _, kind := range kinds {
		def := root.LookupPath(cuelang.ParsePath("#" + kind))
		if err := def.Err(); err != nil {
			return nil, fmt.Errorf("look up #%s: %w", kind, err)
		}
		expr, err := jsonschema.Generate(def, nil)
		if err != nil {
			return nil, fmt.Errorf("generate JSON Schema for #%s: %w", kind, err)
		}
		st, ok := expr.(*ast.StructLit)
		if !ok {
			return nil, fmt.Errorf("generate JSON Schema for #%s: got %T, want a struct", kind, expr)
		}
		rewrite(st)
		addID(st, baseID+FileName(kind))
		v := ctx.BuildExpr(st)
		if err := v.Err(); err != nil {
			return nil, fmt.Errorf("build JSON Schema for #%s: %w", kind, err)
		}
		raw, err := v.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("encode JSON Schema for #%s: %w", kind, err)
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return nil, fmt.Errorf("indent JSON Schema for #%s: %w", kind, err)
		}
		buf.WriteByte('\n')
		out[FileName(kind)] = buf.Bytes()
	}
	return out, nil
}

// addID inserts "$id" right after "$schema".
func addID(st *ast.StructLit, id string) {
	f := &ast.Field{Label: ast.NewString("$id"), Value: ast.NewString(id)}
	for i, d := range st.Elts {
		if name(d) == "$schema" {
			st.Elts = append(st.Elts[:i+1], append([]ast.Decl{f}, st.Elts[i+1:]...)...)
			return
		}
	}
	st.Elts = append([]ast.Decl{f}, st.Elts...)
}

// name returns the label of a field declaration, or "".
func name(d ast.Decl) string {
	f, ok := d.(*ast.Field)
	if !ok {
		return ""
	}
	n, _, err := ast.LabelName(f.Label)
	if err != nil {
		return ""
	}
	return n
}

// rewrite walks the generated schema and merges numeric allOf lists, bottom up.
func rewrite(n ast.Node) {
	switch x := n.(type) {
	case *ast.StructLit:
		for _, d := range x.Elts {
			if f, ok := d.(*ast.Field); ok {
				rewrite(f.Value)
			}
		}
		mergeNumericAllOf(x)
	case *ast.ListLit:
		for _, e := range x.Elts {
			rewrite(e)
		}
	}
}

// numericKeys are the keywords a numeric allOf member may hold to be merged.
var numericKeys = map[string]bool{"type": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true}

// mergeNumericAllOf replaces allOf[{type: number}, {minimum: 0}, {type: integer, ...}] in st
// with the equivalent {type: integer, minimum: 0, ...}, when every member holds only numeric
// keywords and st holds none of them itself.
func mergeNumericAllOf(st *ast.StructLit) {
	idx := -1
	for i, d := range st.Elts {
		switch n := name(d); {
		case n == "allOf":
			idx = i
		case numericKeys[n]:
			return
		}
	}
	if idx < 0 {
		return
	}
	list, ok := st.Elts[idx].(*ast.Field).Value.(*ast.ListLit)
	if !ok {
		return
	}
	typ := ""
	bounds := map[string]*ast.BasicLit{}
	for _, e := range list.Elts {
		m, ok := e.(*ast.StructLit)
		if !ok {
			return
		}
		for _, d := range m.Elts {
			k := name(d)
			if !numericKeys[k] {
				return
			}
			lit, ok := d.(*ast.Field).Value.(*ast.BasicLit)
			if !ok {
				return
			}
			if k == "type" {
				t, err := strconv.Unquote(lit.Value)
				if err != nil || (t != "number" && t != "integer") {
					return
				}
				if typ != "integer" {
					typ = t
				}
				continue
			}
			if old, ok := bounds[k]; ok {
				if tighter(k, lit, old) {
					bounds[k] = lit
				}
				continue
			}
			bounds[k] = lit
		}
	}
	var merged []ast.Decl
	if typ != "" {
		merged = append(merged, &ast.Field{Label: ast.NewString("type"), Value: ast.NewString(typ)})
	}
	for _, k := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"} {
		if lit, ok := bounds[k]; ok {
			merged = append(merged, &ast.Field{Label: ast.NewString(k), Value: &ast.BasicLit{Kind: lit.Kind, Value: lit.Value, ValuePos: token.NoPos}})
		}
	}
	st.Elts = append(st.Elts[:idx], append(merged, st.Elts[idx+1:]...)...)
}

// tighter reports whether bound a is stricter than bound b for keyword k.
func tighter(k string, a, b *ast.BasicLit) bool {
	x, err1 := strconv.ParseFloat(a.Value, 64)
	y, err2 := strconv.ParseFloat(b.Value, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	if strings.HasPrefix(k, "max") || strings.HasPrefix(k, "exclusiveMax") {
		return x < y
	}
	return x > y
}

func main() {
	dir := flag.String("out", ".", "directory to write the schema files to")
	src := flag.String("cue", "../cue", "directory of the CUE definitions (package cue)")
	flag.Parse()
	files, err := generate(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*dir, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
