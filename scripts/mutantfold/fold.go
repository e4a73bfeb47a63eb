package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"
)

// A pkgSource is one package whose files test mutant switches, with its sources.
type pkgSource struct {
	path      string            // import path
	goVersion string            // the module's go version, e.g. "go1.26"
	files     map[string][]byte // file name -> source (nil: the file is deleted)
}

// An edit replaces src[start:end] of one file with text.
type edit struct {
	file       string
	start, end int
	text       string
}

// A folder folds the switches of the mutant package in one package: every switch named in on
// is true, every other false; it simplifies the conditions, drops the dead branches, and then
// removes what only the dropped branches used.
type folder struct {
	mutantPath string          // import path of the switches' package
	on         map[string]bool // switch constant names that are true
	importer   types.Importer
	warn       func(string)
}

// helperName is a top-level declaration only mutant branches use.
var helperName = regexp.MustCompile(`^mutant[A-Z0-9_]`)

// isHelper reports whether a top-level declaration is a mutant helper: named mutant..., or
// unexported in a file named mutant.go (the files that hold only helpers).
func isHelper(file, name string) bool {
	return helperName.MatchString(name) || (strings.HasSuffix(file, "/mutant.go") && !ast.IsExported(name))
}

// unusedVar matches go/types' error for a local variable that is never used.
var unusedVar = regexp.MustCompile(`^declared and not used: (\w+)$`)

// fold returns the folded package. It fails on a switch in a place it does not know how to
// fold (the switch-style source should then be tidied by hand).
func (f *folder) fold(p *pkgSource) (*pkgSource, error) {
	cur := &pkgSource{path: p.path, goVersion: p.goVersion, files: map[string][]byte{}}
	for n, b := range p.files {
		cur.files[n] = b
	}
	cleaning := false
	for round := 0; ; round++ {
		if round > 50 {
			return nil, fmt.Errorf("%s: no fixpoint after 50 rounds", p.path)
		}
		st, err := f.check(cur)
		if err != nil {
			return nil, err
		}
		var edits []edit
		if !cleaning {
			edits, err = f.switchEdits(st)
			if err != nil {
				return nil, err
			}
			if len(edits) == 0 {
				cleaning = true
			}
		}
		if cleaning {
			edits, err = f.cleanupEdits(st)
			if err != nil {
				return nil, err
			}
			if len(edits) == 0 {
				break
			}
		}
		if err := apply(cur, edits); err != nil {
			return nil, fmt.Errorf("%s: %w", p.path, err)
		}
	}
	// Format; a file left with no declarations is deleted.
	fset := token.NewFileSet()
	for n, b := range cur.files {
		if b == nil {
			continue
		}
		af, err := parser.ParseFile(fset, n, b, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if len(af.Decls) == 0 {
			cur.files[n] = nil
			continue
		}
		out, err := format.Source(b)
		if err != nil {
			return nil, fmt.Errorf("gofmt %s: %w", n, err)
		}
		cur.files[n] = out
	}
	return cur, nil
}

// state is one parsed and type-checked round of a package.
type state struct {
	fset  *token.FileSet
	files map[string]*ast.File
	src   map[string][]byte
	info  *types.Info
	errs  []types.Error
}

func (f *folder) check(p *pkgSource) (*state, error) {
	st := &state{fset: token.NewFileSet(), files: map[string]*ast.File{}, src: map[string][]byte{}}
	var list []*ast.File
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		b := p.files[n]
		if b == nil {
			continue
		}
		af, err := parser.ParseFile(st.fset, n, b, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		st.files[n], st.src[n] = af, b
		list = append(list, af)
	}
	st.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Scopes:     map[ast.Node]*types.Scope{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{
		Importer:  f.importer,
		GoVersion: p.goVersion,
		Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) {
				st.errs = append(st.errs, te)
			}
		},
	}
	_, _ = conf.Check(p.path, st.fset, list, st.info)
	for _, e := range st.errs {
		if !e.Soft {
			return nil, fmt.Errorf("type-check %s: %v", p.path, e)
		}
	}
	return st, nil
}

// mutantRef reports whether e is a switch, mutant.X, and its value.
func (f *folder) mutantRef(st *state, e ast.Expr) (bool, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false, false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return false, false
	}
	pn, ok := st.info.Uses[id].(*types.PkgName)
	if !ok || pn.Imported().Path() != f.mutantPath {
		return false, false
	}
	return true, f.on[sel.Sel.Name]
}

// residual is a boolean expression after folding: a constant (known) or the text of what is
// left; binary says the text is an && or || expression (it needs parentheses under !).
type residual struct {
	known, value bool
	text         string
	binary       bool // a binary expression: it needs parentheses under !
	logical      bool // an && or || expression
}

func (f *folder) simplify(st *state, src []byte, e ast.Expr) (residual, error) {
	text := func(n ast.Node) string {
		return string(src[st.fset.Position(n.Pos()).Offset:st.fset.Position(n.End()).Offset])
	}
	if ok, v := f.mutantRef(st, e); ok {
		return residual{known: true, value: v}, nil
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		r, err := f.simplify(st, src, e.X)
		if err != nil || r.known {
			return r, err
		}
		// The parentheses stay around what they held, or around an && or || that is left;
		// around a comparison or an operand that is left alone they go.
		if r.logical || r.text == text(e.X) {
			return residual{text: "(" + r.text + ")"}, nil
		}
		return r, nil
	case *ast.UnaryExpr:
		if e.Op != token.NOT {
			break
		}
		r, err := f.simplify(st, src, e.X)
		if err != nil {
			return r, err
		}
		if r.known {
			return residual{known: true, value: !r.value}, nil
		}
		if r.binary {
			return residual{text: "!(" + r.text + ")"}, nil
		}
		return residual{text: "!" + r.text}, nil
	case *ast.BinaryExpr:
		if e.Op != token.LAND && e.Op != token.LOR {
			break
		}
		l, err := f.simplify(st, src, e.X)
		if err != nil {
			return l, err
		}
		r, err := f.simplify(st, src, e.Y)
		if err != nil {
			return r, err
		}
		and := e.Op == token.LAND
		// The absorbing value decides: false for &&, true for ||. A left operand the decision
		// drops was evaluated before; say so when it calls something.
		absorb := !and
		if l.known && l.value == absorb {
			return residual{known: true, value: absorb}, nil
		}
		if r.known && r.value == absorb {
			if !l.known && hasCall(st, e.X) {
				f.warn(fmt.Sprintf("%s: the folded condition drops %s, which calls something", st.fset.Position(e.Pos()), text(e.X)))
			}
			return residual{known: true, value: absorb}, nil
		}
		if l.known {
			return r, nil
		}
		if r.known {
			return l, nil
		}
		return residual{text: l.text + " " + e.Op.String() + " " + r.text, binary: true, logical: true}, nil
	}
	if containsRef(f, st, e) {
		return residual{}, fmt.Errorf("%s: a switch inside %T, which the folder does not simplify", st.fset.Position(e.Pos()), e)
	}
	_, bin := e.(*ast.BinaryExpr)
	return residual{text: text(e), binary: bin}, nil
}

func containsRef(f *folder, st *state, n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok {
			if ok, _ := f.mutantRef(st, e); ok {
				found = true
			}
		}
		return !found
	})
	return found
}

// hasCall reports whether e calls a function (conversions and len do not count).
func hasCall(st *state, e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := st.info.Types[n.Fun]; ok && tv.IsType() {
				return true
			}
			if id, ok := n.Fun.(*ast.Ident); ok {
				if _, ok := st.info.Uses[id].(*types.Builtin); ok && id.Name != "panic" && id.Name != "close" && id.Name != "delete" && id.Name != "print" && id.Name != "println" {
					return true
				}
			}
			found = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}

// isStructural reports whether n is part of a boolean expression the folder simplifies.
func isStructural(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.ParenExpr:
		return true
	case *ast.UnaryExpr:
		return n.Op == token.NOT
	case *ast.BinaryExpr:
		return n.Op == token.LAND || n.Op == token.LOR
	}
	return false
}

// switchEdits folds every outermost switch site of the package once.
func (f *folder) switchEdits(st *state) ([]edit, error) {
	var edits []edit
	var firstErr error
	for name, af := range st.files {
		src := st.src[name]
		off := func(p token.Pos) int { return st.fset.Position(p).Offset }
		seen := map[ast.Node]bool{}
		var stack []ast.Node
		ast.Inspect(af, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return false
			}
			stack = append(stack, n)
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			if ok, _ := f.mutantRef(st, e); !ok {
				return true
			}
			// The maximal boolean expression holding the switch, and what holds that.
			i := len(stack) - 1
			for i > 0 && isStructural(stack[i-1]) {
				i--
			}
			top := stack[i].(ast.Expr)
			if seen[top] {
				return true
			}
			seen[top] = true
			var parent, grand ast.Node
			if i > 0 {
				parent = stack[i-1]
			}
			if i > 1 {
				grand = stack[i-2]
			}
			r, err := f.simplify(st, src, top)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return true
			}
			es, err := f.siteEdits(st, name, src, top, r, parent, grand, off)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			edits = append(edits, es...)
			return true
		})
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return outermost(edits), nil
}

// siteEdits folds one maximal switch expression top in its context.
func (f *folder) siteEdits(st *state, name string, src []byte, top ast.Expr, r residual, parent, grand ast.Node, off func(token.Pos) int) ([]edit, error) {
	pos := st.fset.Position(top.Pos())
	text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
	replace := func(n ast.Node, s string) []edit {
		return []edit{{file: name, start: off(n.Pos()), end: off(n.End()), text: s}}
	}
	// Under an operator the residual keeps (or gets) its parentheses; elsewhere (a condition, an
	// argument, a value) it loses them.
	operand := false
	switch parent.(type) {
	case *ast.BinaryExpr, *ast.UnaryExpr, *ast.StarExpr, *ast.SelectorExpr:
		operand = true
	}
	unparen := strings.TrimSuffix(strings.TrimPrefix(r.text, "("), ")")
	if !operand && strings.HasPrefix(r.text, "(") && strings.HasSuffix(r.text, ")") && balanced(unparen) {
		r.text = unparen
	}
	switch p := parent.(type) {
	case *ast.IfStmt:
		if p.Cond != top {
			break
		}
		if !r.known {
			es := []edit{{file: name, start: off(top.Pos()), end: off(top.End()), text: r.text}}
			if c := braceComment(st, name, p.Body); c != nil {
				es = append(es, edit{file: name, start: off(p.Body.Lbrace) + 1, end: off(c.End())})
			}
			return es, nil
		}
		// A patch may drop an init statement's call with its if (a mutant only has to be wrong);
		// the production source may not.
		if p.Init != nil && (r.value || (len(f.on) == 0 && hasCall(st, p.Init))) {
			return nil, fmt.Errorf("%s: a switch folds to %v in an if with an init statement: tidy the source", pos, r.value)
		}
		// An if in the else of another if.
		if g, ok := grand.(*ast.IfStmt); ok && g.Else == p {
			switch {
			case r.value:
				return replace(p, text(p.Body)), nil
			case p.Else != nil:
				return replace(p, text(p.Else)), nil
			default:
				return []edit{{file: name, start: off(g.Body.End()), end: off(p.End())}}, nil
			}
		}
		var kept ast.Stmt // what takes the if's place
		switch {
		case r.value:
			kept = p.Body
		case p.Else == nil:
			return []edit{deleteLines(st, name, src, p.Pos(), p.End(), true)}, nil
		default:
			kept = p.Else
		}
		var es []edit
		if b, ok := kept.(*ast.BlockStmt); ok {
			es = f.inline(st, name, src, p, b)
		} else {
			es = replace(p, text(kept))
		}
		// What followed the if in its block is unreachable when what is kept always ends in
		// a return, a break, a continue, a goto or a panic: it goes too.
		if terminates(kept) {
			if list := stmtList(grand); len(list) > 0 && list[len(list)-1] != p && slices.Contains(list, ast.Stmt(p)) {
				es[0].end = off(list[len(list)-1].End())
			}
		}
		return es, nil
	case *ast.CaseClause:
		if !r.known {
			return replace(top, r.text), nil
		}
		if len(p.List) != 1 {
			return nil, fmt.Errorf("%s: a switch folds to a constant in a case of several expressions: tidy the source", pos)
		}
		if !r.value {
			return []edit{deleteLines(st, name, src, p.Pos(), p.End(), true)}, nil
		}
		f.warn(fmt.Sprintf("%s: a case folds to true", pos))
		return replace(top, "true"), nil
	}
	if r.known {
		if len(f.on) == 0 {
			f.warn(fmt.Sprintf("%s: %s folds to the constant %v", pos, text(top), r.value))
		}
		return replace(top, fmt.Sprint(r.value)), nil
	}
	if operand && r.binary {
		return replace(top, "("+r.text+")"), nil
	}
	return replace(top, r.text), nil
}

// balanced reports whether s has as many ( as ) at every prefix (so a stripped pair of
// parentheses was one pair).
func balanced(s string) bool {
	d := 0
	for _, c := range s {
		switch c {
		case '(':
			d++
		case ')':
			d--
			if d < 0 {
				return false
			}
		}
	}
	return d == 0
}

// inline replaces the if statement s by the statements of block b, or by b itself when one of
// b's own declarations would clash with or shadow a name in scope there.
func (f *folder) inline(st *state, name string, src []byte, s *ast.IfStmt, b *ast.BlockStmt) []edit {
	off := func(p token.Pos) int { return st.fset.Position(p).Offset }
	scope := st.info.Scopes[s]
	if scope == nil {
		scope = st.info.Scopes[b]
	}
	clash := ""
	for _, stmt := range b.List {
		var ids []*ast.Ident
		switch stmt := stmt.(type) {
		case *ast.AssignStmt:
			if stmt.Tok == token.DEFINE {
				for _, l := range stmt.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						ids = append(ids, id)
					}
				}
			}
		case *ast.DeclStmt:
			for _, sp := range stmt.Decl.(*ast.GenDecl).Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					ids = append(ids, sp.Names...)
				case *ast.TypeSpec:
					ids = append(ids, sp.Name)
				}
			}
		}
		// A name declared before the if in the enclosing block, or in scope from further out,
		// would be redeclared or shadowed; one the block declares only later is fine (its later
		// := then assigns it, which the next round's type check holds to the same type).
		for _, id := range ids {
			if scope == nil || scope.Parent() == nil {
				clash = id.Name
				break
			}
			block := scope.Parent()
			if obj := block.Lookup(id.Name); obj != nil && obj.Pos() < s.Pos() {
				clash = id.Name
			} else if outer := block.Parent(); outer != nil {
				if _, obj := outer.LookupParent(id.Name, s.Pos()); obj != nil {
					clash = id.Name
				}
			}
		}
	}
	if clash != "" || len(b.List) == 0 {
		if clash != "" && len(f.on) == 0 {
			f.warn(fmt.Sprintf("%s: kept as a block: %s would clash with a name in scope", st.fset.Position(s.Pos()), clash))
		}
		if len(b.List) == 0 {
			return []edit{deleteLines(st, name, src, s.Pos(), s.End(), false)}
		}
		return []edit{{file: name, start: off(s.Pos()), end: off(s.End()), text: string(src[off(b.Pos()):off(b.End())])}}
	}
	from := off(b.Lbrace) + 1
	if c := braceComment(st, name, b); c != nil {
		from = off(c.End())
	}
	inner := strings.TrimSpace(string(src[from:off(b.Rbrace)]))
	return []edit{{file: name, start: off(s.Pos()), end: off(s.End()), text: inner}}
}

// deleteLines deletes [from, to) and, when nothing else is on them, the lines it spans, with
// the comment just above that names a mutant when withComment.
func deleteLines(st *state, name string, src []byte, from, to token.Pos, withComment bool) edit {
	start, end := st.fset.Position(from).Offset, st.fset.Position(to).Offset
	if withComment {
		line := st.fset.Position(from).Line
		for _, cg := range st.files[name].Comments {
			if st.fset.Position(cg.End()).Line == line-1 && strings.Contains(strings.ToLower(cg.Text()), "mutant") {
				s := st.fset.Position(cg.Pos()).Offset
				if lineStart(src, s) == s-leadingBlank(src, s) {
					start = s
				}
			}
		}
	}
	ls := lineStart(src, start)
	if strings.TrimSpace(string(src[ls:start])) == "" {
		// The rest of the last line: blank or a line comment.
		le := end
		for le < len(src) && src[le] != '\n' {
			le++
		}
		rest := strings.TrimSpace(string(src[end:le]))
		if rest == "" || strings.HasPrefix(rest, "//") {
			start, end = ls, min(le+1, len(src))
		}
	}
	return edit{file: name, start: start, end: end}
}

func lineStart(src []byte, i int) int {
	for i > 0 && src[i-1] != '\n' {
		i--
	}
	return i
}

func leadingBlank(src []byte, i int) int {
	n := 0
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
		n++
	}
	return n
}

// outermost drops the edits that lie inside another: the next round folds what they held.
func outermost(edits []edit) []edit {
	slices.SortFunc(edits, func(a, b edit) int {
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var out []edit
	for _, e := range edits {
		if n := len(out); n > 0 && out[n-1].file == e.file && e.start < out[n-1].end {
			continue
		}
		out = append(out, e)
	}
	return out
}

// apply applies non-overlapping edits.
func apply(p *pkgSource, edits []edit) error {
	edits = outermost(edits)
	byFile := map[string][]edit{}
	for _, e := range edits {
		byFile[e.file] = append(byFile[e.file], e)
	}
	for name, es := range byFile {
		src := p.files[name]
		var b bytes.Buffer
		last := 0
		for _, e := range es {
			if e.start < last {
				return fmt.Errorf("%s: overlapping edits at offset %d", name, e.start)
			}
			b.Write(src[last:e.start])
			b.WriteString(e.text)
			last = e.end
		}
		b.Write(src[last:])
		p.files[name] = b.Bytes()
	}
	return nil
}

// cleanupEdits removes, once no switch is left, what only the dropped branches used: local
// variables left unused, unreferenced top-level declarations named mutant..., and imports left
// unused.
func (f *folder) cleanupEdits(st *state) ([]edit, error) {
	var edits []edit
	var errs []error
	used := map[types.Object]bool{}
	for id, obj := range st.info.Uses {
		_ = id
		used[obj] = true
	}
	for name, af := range st.files {
		src := st.src[name]
		// Unused local variables.
		unused := map[token.Pos]bool{}
		for _, te := range st.errs {
			if unusedVar.MatchString(te.Msg) {
				unused[te.Pos] = true
			}
		}
		for _, te := range st.errs {
			m := unusedVar.FindStringSubmatch(te.Msg)
			if m == nil || st.fset.Position(te.Pos).Filename != name {
				continue
			}
			e, err := removeUnused(st, name, src, af, te.Pos, unused, len(f.on) > 0)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			edits = append(edits, e)
		}
		// Unreferenced helpers.
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !isHelper(name, d.Name.Name) || referencedOutside(st, st.info.Defs[d.Name], d) {
					continue
				}
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				edits = append(edits, deleteLines(st, name, src, from, d.End(), false))
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				var dead []ast.Spec
				for _, sp := range d.Specs {
					var ids []*ast.Ident
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						ids = sp.Names
					case *ast.TypeSpec:
						ids = []*ast.Ident{sp.Name}
					}
					all := len(ids) > 0
					for _, id := range ids {
						if !isHelper(name, id.Name) || referencedOutside(st, st.info.Defs[id], d) {
							all = false
						}
					}
					if all {
						dead = append(dead, sp)
					}
				}
				switch {
				case len(dead) == 0:
				case len(dead) == len(d.Specs):
					from := d.Pos()
					if d.Doc != nil {
						from = d.Doc.Pos()
					}
					edits = append(edits, deleteLines(st, name, src, from, d.End(), false))
				default:
					for _, sp := range dead {
						from := sp.Pos()
						if doc := specDoc(sp); doc != nil {
							from = doc.Pos()
						}
						edits = append(edits, deleteLines(st, name, src, from, sp.End(), false))
					}
				}
			}
		}
		// Unused imports.
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.IMPORT {
				continue
			}
			var dead []*ast.ImportSpec
			for _, sp := range gd.Specs {
				is := sp.(*ast.ImportSpec)
				if is.Name != nil && (is.Name.Name == "_" || is.Name.Name == ".") {
					continue
				}
				var obj types.Object
				if is.Name != nil {
					obj = st.info.Defs[is.Name]
				} else {
					obj = st.info.Implicits[is]
				}
				if obj != nil && !used[obj] {
					dead = append(dead, is)
				}
			}
			if len(dead) == len(gd.Specs) && len(dead) > 0 {
				edits = append(edits, deleteLines(st, name, src, gd.Pos(), gd.End(), false))
				continue
			}
			for _, is := range dead {
				edits = append(edits, deleteLines(st, name, src, is.Pos(), is.End(), false))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return outermost(edits), nil
}

func specDoc(sp ast.Spec) *ast.CommentGroup {
	switch sp := sp.(type) {
	case *ast.ValueSpec:
		return sp.Doc
	case *ast.TypeSpec:
		return sp.Doc
	}
	return nil
}

// referencedOutside reports whether obj is used anywhere but inside decl.
func referencedOutside(st *state, obj types.Object, decl ast.Node) bool {
	if obj == nil {
		return true
	}
	for id, o := range st.info.Uses {
		if o == obj && (id.Pos() < decl.Pos() || id.Pos() >= decl.End()) {
			return true
		}
	}
	return false
}

// removeUnused deletes the declaration of the unused local variable at pos when it declares
// only that variable and computes its value without calling anything.
func removeUnused(st *state, name string, src []byte, af *ast.File, pos token.Pos, unused map[token.Pos]bool, patch bool) (edit, error) {
	var stack []ast.Node
	var found []ast.Node
	ast.Inspect(af, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		stack = append(stack, n)
		if id, ok := n.(*ast.Ident); ok && id.Pos() == pos {
			found = slices.Clone(stack)
		}
		return true
	})
	where := st.fset.Position(pos)
	for i := len(found) - 1; i >= 0; i-- {
		switch s := found[i].(type) {
		case *ast.RangeStmt:
			off := func(p token.Pos) int { return st.fset.Position(p).Offset }
			key, _ := s.Key.(*ast.Ident)
			val, _ := s.Value.(*ast.Ident)
			switch {
			case key != nil && key.Pos() == pos && val == nil:
				return edit{file: name, start: off(key.Pos()), end: off(s.Range)}, nil // for range x
			case key != nil && key.Pos() == pos:
				return edit{file: name, start: off(key.Pos()), end: off(key.End()), text: "_"}, nil
			case val != nil && val.Pos() == pos && key != nil && key.Name == "_":
				return edit{file: name, start: off(key.Pos()), end: off(s.Range)}, nil
			case val != nil && val.Pos() == pos:
				return edit{file: name, start: off(key.End()), end: off(val.End())}, nil
			}
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				break
			}
			off := func(p token.Pos) int { return st.fset.Position(p).Offset }
			named := 0 // the other names it declares that stay
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && id.Name != "_" && !unused[id.Pos()] {
					named++
				}
			}
			switch {
			case named > 0:
				return edit{file: name, start: off(pos), end: off(pos) + len(identAt(s, pos).Name), text: "_"}, nil
			case len(s.Lhs) == 1 && (patch || !hasCall(st, s)):
				return deleteLines(st, name, src, s.Pos(), s.End(), true), nil
			case !hasCall(st, s):
				return deleteLines(st, name, src, s.Pos(), s.End(), true), nil
			}
			return edit{}, fmt.Errorf("%s: a variable left unused by the fold is declared with a call: tidy the source", where)
		case *ast.DeclStmt:
			gd := s.Decl.(*ast.GenDecl)
			if len(gd.Specs) == 1 && len(gd.Specs[0].(*ast.ValueSpec).Names) == 1 && (patch || !hasCall(st, s)) {
				return deleteLines(st, name, src, s.Pos(), s.End(), true), nil
			}
			return edit{}, fmt.Errorf("%s: a variable left unused by the fold is declared with others or a call: tidy the source", where)
		}
	}
	return edit{}, fmt.Errorf("%s: a variable left unused by the fold (declared where the folder cannot remove it): tidy the source", where)
}

// identAt is the identifier of s's left-hand side at pos.
func identAt(s *ast.AssignStmt, pos token.Pos) *ast.Ident {
	for _, l := range s.Lhs {
		if id, ok := l.(*ast.Ident); ok && id.Pos() == pos {
			return id
		}
	}
	return nil
}

// braceComment is the line comment after a block's opening brace, on its line, when it speaks
// of the mutant (it goes with the switch).
func braceComment(st *state, name string, b *ast.BlockStmt) *ast.Comment {
	line := st.fset.Position(b.Lbrace).Line
	for _, cg := range st.files[name].Comments {
		if cg.Pos() > b.Lbrace && st.fset.Position(cg.Pos()).Line == line && strings.Contains(strings.ToLower(cg.Text()), "mutant") {
			return cg.List[len(cg.List)-1]
		}
	}
	return nil
}

// stmtList is the statement list of a block, case or select clause.
func stmtList(n ast.Node) []ast.Stmt {
	switch n := n.(type) {
	case *ast.BlockStmt:
		return n.List
	case *ast.CaseClause:
		return n.Body
	case *ast.CommClause:
		return n.Body
	}
	return nil
}

// terminates reports whether s always ends in a return, a break, a continue, a goto or a
// panic (a subset of the specification's terminating statements, the one the folds meet).
func terminates(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok != token.FALLTHROUGH
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	case *ast.BlockStmt:
		return len(s.List) > 0 && terminates(s.List[len(s.List)-1])
	case *ast.IfStmt:
		return s.Else != nil && terminates(s.Body) && terminates(s.Else)
	}
	return false
}
