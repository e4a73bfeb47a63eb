package cue

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/validation/field"
)

// maxPasses bounds the evaluations of one document. CUE reports only some errors when several
// exist (an unknown field is hidden while other errors exist; a missing field is hidden by a
// bad sibling value), so the engine evaluates again with every reported value or unknown field
// left out of the document (list elements too, with their indexes mapped back), until an
// evaluation reports nothing new. A valid
// document takes one pass; each pass costs one evaluation (a few milliseconds of CPU for a
// typical pod). A document with errors hidden behind more than maxPasses layers gets the errors
// of the first maxPasses passes, so the cost of one document stays bounded.
const maxPasses = 32

// Validate (test-only: see the package comment) checks a decoded document (map[string]any, []any, string, bool, nil and numbers as
// float64, int64 or json.Number) against the CUE definition of kind (#Pod, #Notification,
// #PodStatus, #NotificationStatus or #PodNotificationRecord). It returns every violation it
// finds, with the same rule IDs, paths and messages as package schema's engine, or nil when the
// document is valid.
//
// Each call evaluates in a fresh cue.Context (CUE values are not safe for concurrent use), so
// Validate is safe for concurrent use and its memory is released when it returns.
func Validate(kind string, value any) field.ErrorList {
	return schema.Errors(Violations(kind, value))
}

// Violations is Validate before rendering: the structural violations of a document, sorted by
// path, without duplicates.
func Violations(kind string, value any) []schema.Violation {
	if !slices.Contains(Kinds(), kind) {
		return []schema.Violation{{Kind: schema.NotInEnum, Tokens: []string{"kind"}, Value: kind, HasValue: true, Want: Kinds()}}
	}
	groups, err := matchGroups()
	if err != nil {
		return []schema.Violation{{Kind: schema.Other, Want: []string{"internal error: " + err.Error()}}}
	}
	ctx := cuecontext.New()
	root, err := Build(ctx)
	if err != nil {
		return []schema.Violation{{Kind: schema.Other, Want: []string{"internal error: " + err.Error()}}}
	}
	def := root.LookupPath(cue.MakePath(cue.Def(kind)))
	// CUE cannot hold a NaN or an infinity (YAML can write them): each is one violation where
	// it stands, as in package schema, and CUE checks the document with null in its place.
	var nonJSON []schema.Violation
	value, _ = withoutNonJSON(value, nil, &nonJSON)
	ev := &evaluation{
		ctx: ctx, def: def, root: value, groups: groups,
		omitted: map[string]bool{}, added: map[string]bool{}, seen: map[string]bool{},
		alternative: map[string]bool{}, extra: map[string]bool{}, placeholder: map[string]bool{},
		oneOf: map[string]group{},
	}
	for _, g := range groups {
		for _, n := range g.names() {
			ev.alternative[n] = true
		}
	}
	for pass := 0; pass < maxPasses; pass++ {
		if !ev.pass() {
			break
		}
	}
	out := slices.DeleteFunc(ev.out, func(v schema.Violation) bool {
		return slices.ContainsFunc(nonJSON, func(n schema.Violation) bool { return hasPrefix(v.Tokens, n.Tokens) })
	})
	return schema.Normalize(append(out, nonJSON...))
}

// withoutNonJSON returns v with every NaN and infinity replaced by null (copying only what it
// changes) and whether it changed anything, and records a violation for each.
func withoutNonJSON(v any, at []string, out *[]schema.Violation) (any, bool) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			*out = append(*out, schema.Violation{Kind: schema.Other, Tokens: slices.Clone(at), Value: x, HasValue: true, Want: []string{schema.NotJSONValue}})
			return nil, true
		}
	case map[string]any:
		var m map[string]any
		for k, e := range x {
			if r, changed := withoutNonJSON(e, append(at[:len(at):len(at)], k), out); changed {
				if m == nil {
					m = maps.Clone(x)
				}
				m[k] = r
			}
		}
		if m != nil {
			return m, true
		}
	case []any:
		var l []any
		for i, e := range x {
			if r, changed := withoutNonJSON(e, append(at[:len(at):len(at)], strconv.Itoa(i)), out); changed {
				if l == nil {
					l = slices.Clone(x)
				}
				l[i] = r
			}
		}
		if l != nil {
			return l, true
		}
	}
	return v, false
}

// hasPrefix reports whether path starts with prefix.
func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// group is one matchN call of the definitions: an object must match exactly Count of the
// alternatives, each of which requires the fields it names.
type group struct {
	count int
	alts  [][]string
}

// names returns the fields the alternatives name, in order, without repeats.
func (g group) names() []string {
	var out []string
	for _, a := range g.alts {
		for _, n := range a {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// matchGroups parses the embedded definitions once and returns their matchN calls keyed by
// source position ("file:line:col"), which CUE reports as the position of a matchN error.
var matchGroups = sync.OnceValues(func() (map[string]group, error) {
	out := map[string]group{}
	names, err := sourceNames()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		src, err := sources.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read embedded %s: %w", name, err)
		}
		f, err := parser.ParseFile(name, src)
		if err != nil {
			return nil, fmt.Errorf("parse embedded %s: %w", name, err)
		}
		ast.Walk(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "matchN" || len(call.Args) != 2 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			list, ok2 := call.Args[1].(*ast.ListLit)
			if !ok || !ok2 {
				return true
			}
			count, err := strconv.Atoi(lit.Value)
			if err != nil {
				return true
			}
			g := group{count: count}
			for _, e := range list.Elts {
				st, ok := e.(*ast.StructLit)
				if !ok {
					continue
				}
				var alt []string
				for _, d := range st.Elts {
					if fd, ok := d.(*ast.Field); ok {
						if l, _, err := ast.LabelName(fd.Label); err == nil {
							alt = append(alt, l)
						}
					}
				}
				g.alts = append(g.alts, alt)
			}
			out[call.Pos().String()] = g
			return true
		}, nil)
	}
	return out, nil
})

// evaluation is the state of validating one document over several passes.
type evaluation struct {
	ctx    *cue.Context
	def    cue.Value
	root   any
	groups map[string]group
	// omitted paths are left out of the document (their violation is already reported);
	// added paths are emitted as _ although the document lacks them (the first alternative
	// of an object that sets none of its "exactly one of" fields).
	omitted, added map[string]bool
	seen           map[string]bool
	// placeholder lists keep their left-out elements as _ (leaving them out made the list
	// too short).
	placeholder map[string]bool
	// alternative holds every field name of a matchN alternative; extra the omitted fields
	// that were reported as extra alternatives (left out for good).
	alternative map[string]bool
	extra       map[string]bool
	// remap maps, per pass, each list that lost elements (by its path in the document) from
	// the indexes CUE sees to the document's indexes.
	remap map[string][]int
	// oneOf maps the objects CUE reported a matchN error for to that matchN: CUE then also
	// reports each alternative's field as missing, which is noise.
	oneOf map[string]group
	out   []schema.Violation
}

func pathKey(toks []string) string { return strings.Join(toks, "\x00") }

// pass evaluates the document once and reports whether it found anything new.
func (ev *evaluation) pass() bool {
	var b strings.Builder
	ev.remap = map[string][]int{}
	ev.emit(&b, ev.root, nil)
	data := ev.ctx.CompileString(b.String())
	if err := data.Err(); err != nil {
		ev.add(schema.Violation{Kind: schema.Other, Want: []string{"internal error: encode document: " + err.Error()}})
		return false
	}
	err := ev.def.Unify(data).Validate(cue.Concrete(true))
	if err == nil {
		return false
	}
	// Group the errors by path: a disjunction reports a header and one error per alternative.
	type pathErrs struct {
		toks []string
		errs []errors.Error
	}
	var order []string
	byPath := map[string]*pathErrs{}
	for _, e := range errors.Errors(err) {
		toks := ev.original(tokens(e.Path()))
		if format, args := e.Msg(); strings.HasPrefix(format, "invalid value %s (does not satisfy %s)") && len(args) >= 2 && fmt.Sprint(args[1]) == "matchN" {
			if g, ok := ev.groups[e.Position().String()]; ok {
				ev.oneOf[pathKey(toks)] = g
			}
		}
		k := pathKey(toks)
		if byPath[k] == nil {
			byPath[k] = &pathErrs{toks: toks}
			order = append(order, k)
		}
		byPath[k].errs = append(byPath[k].errs, e)
	}
	progress := false
	var stuck [][]string // paths of errors that reported nothing new
	for _, k := range order {
		pe := byPath[k]
		if ev.underNeutral(pe.toks) {
			stuck = append(stuck, pe.toks)
			continue
		}
		fresh := false
		for _, v := range ev.classify(pe.toks, pe.errs) {
			if ev.record(v) {
				fresh = true
			}
		}
		if fresh {
			progress = true
		} else {
			stuck = append(stuck, pe.toks)
		}
	}
	if progress {
		return true
	}
	// Nothing new, yet CUE still reports errors: missing fields (which cannot be left out) and
	// errors left behind by what was left out (a required field of an object whose bad value
	// was removed, a matchN that failed because of it) can hide errors elsewhere, e.g. in later
	// elements of the same list. Leave out the list elements that hold them and evaluate again;
	// their own errors were reported already (or, rarely, stay hidden).
	// A list that became too short keeps its left-out elements as _ instead.
	for _, toks := range stuck {
		k := pathKey(toks)
		if v, ok := schema.Lookup(ev.root, toks); ok && !ev.placeholder[k] && ev.remap[k] != nil && len(ev.remap[k]) < len(asList(v)) {
			if _, isList := v.([]any); isList {
				ev.placeholder[k] = true
				progress = true
				continue
			}
		}
		if el := ev.enclosingElement(toks); el != nil && !ev.omitted[pathKey(el)] {
			ev.omitted[pathKey(el)] = true
			progress = true
		}
	}
	return progress
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// enclosingElement returns the path of the innermost list element that contains toks (toks
// itself included), or nil.
func (ev *evaluation) enclosingElement(toks []string) []string {
	for i := len(toks); i > 0; i-- {
		parent, _ := schema.Lookup(ev.root, toks[:i-1])
		if _, isList := parent.([]any); isList {
			return toks[:i]
		}
	}
	return nil
}

// underNeutral reports whether toks is at or below an omitted or added path.
func (ev *evaluation) underNeutral(toks []string) bool {
	for i := len(toks); i >= 0; i-- {
		k := pathKey(toks[:i])
		if ev.omitted[k] || ev.added[k] {
			return true
		}
	}
	return false
}

// original maps the tokens of a path CUE reports (in the emitted document) to the document's.
func (ev *evaluation) original(toks []string) []string {
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if m, ok := ev.remap[pathKey(out)]; ok {
			if i, err := strconv.Atoi(t); err == nil && i >= 0 && i < len(m) {
				t = strconv.Itoa(m[i])
			}
		}
		out = append(out, t)
	}
	return out
}

// record adds a violation if it is new and neutralises what it points at for the next pass.
func (ev *evaluation) record(v schema.Violation) bool {
	key := fmt.Sprintf("%d\x01%s\x01%s", v.Kind, pathKey(v.Tokens), strings.Join(v.Names, ","))
	if ev.seen[key] {
		return false
	}
	ev.seen[key] = true
	ev.add(v)
	switch v.Kind {
	case schema.Missing:
		// Nothing to leave out; a missing field hides no other error.
	case schema.NotExactlyOne:
		if len(v.Set) == 0 && len(v.Names) > 0 {
			ev.added[pathKey(append(slices.Clip(v.Tokens), v.Names[0]))] = true
		}
		for _, extra := range v.Set[min(1, len(v.Set)):] {
			k := pathKey(append(slices.Clip(v.Tokens), extra))
			ev.omitted[k], ev.extra[k] = true, true
		}
	case schema.Exclusive:
		for _, n := range v.Names[min(1, len(v.Names)):] {
			k := pathKey(append(slices.Clip(v.Tokens), n))
			ev.omitted[k], ev.extra[k] = true, true
		}
	default:
		if len(v.Tokens) > 0 { // the document itself stays: nothing else can be found then
			ev.omitted[pathKey(v.Tokens)] = true
		}
	}
	return true
}

func (ev *evaluation) add(v schema.Violation) { ev.out = append(ev.out, v) }

// classify turns the CUE errors reported at one path into violations.
func (ev *evaluation) classify(toks []string, errs []errors.Error) []schema.Violation {
	val, has := schema.Lookup(ev.root, toks)
	base := schema.Violation{Tokens: toks, Value: val, HasValue: has}
	var out []schema.Violation
	disjunction := false
	var alts []errors.Error
	for _, e := range errs {
		format, args := e.Msg()
		switch {
		case strings.HasSuffix(format, "errors in empty disjunction:"):
			disjunction = true
		case format == "field not allowed":
			out = append(out, schema.Violation{Kind: schema.UnknownField, Tokens: toks})
		case format == "field is required but not present":
			if len(toks) == 0 {
				continue
			}
			parent, name := toks[:len(toks)-1], toks[len(toks)-1]
			if ev.isAlternative(parent, name) {
				continue // reported as NotExactlyOne on the parent
			}
			out = append(out, schema.Violation{Kind: schema.Missing, Tokens: parent, Names: []string{name}})
		case strings.HasPrefix(format, "invalid value %s (does not satisfy %s)") && len(args) >= 2:
			if v, ok := ev.validator(base, fmt.Sprint(args[1]), e); ok {
				out = append(out, v)
			}
		case strings.HasPrefix(format, "incomplete value"):
			// A neutralised or added value (_); never reported.
		default:
			alts = append(alts, e)
		}
	}
	if len(alts) == 0 {
		return out
	}
	if !disjunction && len(alts) == 1 {
		return append(out, ev.single(base, alts[0]))
	}
	// CUE reports the alternatives of a disjunction sorted by message; put them back in
	// source order, which is the order the definitions (and the JSON Schema enums) list them.
	sortBySource(alts)
	return append(out, ev.disjunction(base, alts))
}

// isAlternative reports whether name is a field of a matchN that failed on the object at
// parent: CUE then reports the field of every alternative that did not match as missing.
func (ev *evaluation) isAlternative(parent []string, name string) bool {
	g, ok := ev.oneOf[pathKey(parent)]
	return ok && slices.Contains(g.names(), name)
}

// validator classifies a failed validator call: matchN, list.MinItems, list.MaxItems,
// time.Format.
func (ev *evaluation) validator(base schema.Violation, call string, e errors.Error) (schema.Violation, bool) {
	switch {
	case call == "matchN":
		obj, isObj := base.Value.(map[string]any)
		if !isObj || len(base.Tokens) == 0 {
			// A value of the wrong type has its own type error. A matchN error without a path
			// comes from a value neutralised to _ (no definition has a matchN at its root).
			return base, false
		}
		g, ok := ev.groups[e.Position().String()]
		if !ok {
			base.Kind, base.Want = schema.Other, []string{e.Error()}
			return base, true
		}
		var set []string
		for _, n := range g.names() {
			if _, ok := obj[n]; ok {
				set = append(set, n)
			}
		}
		// A matchN also fails when the one field that is set holds a bad value; that value's
		// own error is the one to report.
		if g.count == 0 {
			if len(set) < len(g.names()) {
				return base, false
			}
			names := slices.Clone(g.names())
			sort.Strings(names)
			return schema.Violation{Kind: schema.Exclusive, Tokens: base.Tokens, Names: names}, true
		}
		if len(set) == g.count {
			return base, false
		}
		return schema.Violation{Kind: schema.NotExactlyOne, Tokens: base.Tokens, Names: g.names(), Set: set}, true
	case strings.HasPrefix(call, "list.MinItems("):
		base.Kind, base.Limit = schema.TooFewItems, strings.TrimSuffix(strings.TrimPrefix(call, "list.MinItems("), ")")
		// Leaving out bad elements shortens a list; only the document's own length counts.
		if l, ok := base.Value.([]any); ok {
			if limit, err := strconv.Atoi(base.Limit); err == nil && len(l) >= limit {
				return base, false
			}
		}
	case strings.HasPrefix(call, "list.MaxItems("):
		base.Kind, base.Limit = schema.TooManyItems, strings.TrimSuffix(strings.TrimPrefix(call, "list.MaxItems("), ")")
	case strings.HasPrefix(call, "time.Format("):
		base.Kind, base.Want = schema.BadFormat, []string{"date-time"}
	default:
		base.Kind, base.Want = schema.Other, []string{"does not satisfy " + call}
	}
	return base, true
}

// conflict is one "conflicting values" or "out of bound" error, reduced to what it says.
type conflict struct {
	typeWant string // the JSON type the schema wants, for a type mismatch
	literal  string // the schema's literal, for a value conflict (unquoted)
	bound    string // the bound, for an out-of-bound error
	other    string // anything else: the CUE message
}

// parse reduces one error at base's path to a conflict.
func (ev *evaluation) parse(base schema.Violation, e errors.Error) conflict {
	format, args := e.Msg()
	switch {
	case strings.HasPrefix(format, "conflicting values %s and %s (mismatched types %s and %s)") && len(args) >= 4:
		a, b := fmt.Sprint(args[0]), fmt.Sprint(args[1])
		ka, kb := fmt.Sprint(args[2]), fmt.Sprint(args[3])
		other, otherKind := b, kb
		if ev.isData(base, b) && !ev.isData(base, a) {
			other, otherKind = a, ka
		}
		if isLiteral(other) {
			return conflict{literal: unquote(other)}
		}
		return conflict{typeWant: jsonType(otherKind)}
	case strings.HasPrefix(format, "conflicting values %s and %s") && len(args) >= 2:
		a, b := fmt.Sprint(args[0]), fmt.Sprint(args[1])
		other := b
		if ev.isData(base, b) && !ev.isData(base, a) {
			other = a
		}
		return conflict{literal: unquote(other)}
	case strings.HasPrefix(format, "invalid value %v (out of bound %s)") && len(args) >= 2:
		return conflict{bound: fmt.Sprint(args[1])}
	}
	return conflict{other: e.Error()}
}

// single classifies a lone error at base's path.
func (ev *evaluation) single(base schema.Violation, e errors.Error) schema.Violation {
	c := ev.parse(base, e)
	switch {
	case c.typeWant != "":
		base.Kind, base.Want = schema.WrongType, []string{c.typeWant}
	case c.bound != "":
		return boundViolation(base, c.bound)
	case c.other != "":
		base.Kind, base.Want = schema.Other, []string{c.other}
	default:
		base.Kind, base.Want = schema.NotConst, []string{displayLiteral(c.literal)}
	}
	return base
}

// disjunction collapses the errors of an empty disjunction into one violation: an enum when
// every alternative is a literal, else the alternatives that fit the value's type, else a type
// error listing every accepted type.
func (ev *evaluation) disjunction(base schema.Violation, errs []errors.Error) schema.Violation {
	var cs []conflict
	for _, e := range errs {
		cs = append(cs, ev.parse(base, e))
	}
	allLiteral := true
	for _, c := range cs {
		if c.literal == "" && !(c.typeWant == "" && c.bound == "" && c.other == "") {
			allLiteral = false
		}
	}
	if allLiteral {
		base.Kind = schema.NotInEnum
		for _, c := range cs {
			base.Want = append(base.Want, displayLiteral(c.literal))
		}
		return base
	}
	var types []string
	for _, c := range cs {
		switch {
		case c.bound != "":
			return boundViolation(base, c.bound)
		case c.typeWant != "":
			if !slices.Contains(types, c.typeWant) {
				types = append(types, c.typeWant)
			}
		case c.literal == "null":
			if !slices.Contains(types, "null") {
				types = append(types, "null")
			}
		}
	}
	base.Kind, base.Want = schema.WrongType, types
	return base
}

// sortBySource orders the errors of a disjunction's alternatives by the source position of the
// alternative each names: the first position inside the definitions that the errors do not
// all share (they share the positions of the references that led to the disjunction).
func sortBySource(alts []errors.Error) {
	count := map[token.Pos]int{}
	for _, e := range alts {
		for _, p := range errors.Positions(e) {
			count[p]++
		}
	}
	own := func(e errors.Error) token.Pos {
		for _, p := range errors.Positions(e) {
			if strings.HasSuffix(p.Filename(), ".cue") && count[p] < len(alts) {
				return p
			}
		}
		return token.NoPos
	}
	slices.SortStableFunc(alts, func(a, b errors.Error) int {
		pa, pb := own(a), own(b)
		if c := strings.Compare(pa.Filename(), pb.Filename()); c != 0 {
			return c
		}
		return pa.Offset() - pb.Offset()
	})
}

// boundViolation classifies an out-of-bound error: a pattern (=~"re") or a number bound.
func boundViolation(base schema.Violation, bound string) schema.Violation {
	if re, ok := strings.CutPrefix(bound, "=~"); ok {
		base.Kind, base.Pattern = schema.NoPatternMatch, unquote(re)
		return base
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if lim, ok := strings.CutPrefix(bound, op); ok {
			base.Kind, base.Op, base.Limit = schema.OutOfRange, op, lim
			return base
		}
	}
	base.Kind, base.Want = schema.Other, []string{"out of bound " + bound}
	return base
}

// isData reports whether a CUE rendering is the document's value at base's path.
func (ev *evaluation) isData(base schema.Violation, s string) bool {
	if !base.HasValue {
		return false
	}
	var b strings.Builder
	ev.emit(&b, base.Value, base.Tokens)
	return b.String() == s
}

// isLiteral reports whether a CUE rendering is a concrete scalar rather than a type.
func isLiteral(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '"' || s == "true" || s == "false" {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// displayLiteral renders a schema literal as package schema does for enums and consts.
func displayLiteral(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// jsonType maps a CUE kind to the JSON Schema type name.
func jsonType(k string) string {
	switch k {
	case "int":
		return "integer"
	case "float", "number", "int|float":
		return "number"
	case "bool":
		return "boolean"
	case "list":
		return "array"
	case "struct":
		return "object"
	}
	return k
}

// tokens turns a CUE error path (#Kind.a.b.0) into JSON-pointer tokens (a, b, 0).
func tokens(p []string) []string {
	if len(p) > 0 && strings.HasPrefix(p[0], "#") {
		p = p[1:]
	}
	out := make([]string, len(p))
	for i, t := range p {
		out[i] = unquote(t)
	}
	return out
}

// emit writes v as CUE (JSON syntax, integral numbers as integers), leaving out omitted paths
// (recording how list indexes shift in ev.remap) and adding added paths as _.
func (ev *evaluation) emit(b *strings.Builder, v any, toks []string) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		q, _ := json.Marshal(x)
		b.Write(q)
	case float64:
		b.WriteString(number(x))
	case float32:
		b.WriteString(number(float64(x)))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			b.WriteString(string(x))
		} else if f, err := x.Float64(); err == nil {
			b.WriteString(number(f))
		} else {
			b.WriteString(string(x))
		}
	case []any:
		b.WriteByte('[')
		kept := []int{}
		for i, e := range x {
			ct := append(slices.Clip(toks), strconv.Itoa(i))
			if ev.omitted[pathKey(ct)] && !ev.placeholder[pathKey(toks)] {
				continue
			}
			if len(kept) > 0 {
				b.WriteByte(',')
			}
			kept = append(kept, i)
			if ev.omitted[pathKey(ct)] {
				b.WriteByte('_')
				continue
			}
			ev.emit(b, e, ct)
		}
		if len(kept) < len(x) && ev.remap != nil {
			ev.remap[pathKey(toks)] = kept
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		n := 0
		for _, k := range keys {
			ct := append(slices.Clip(toks), k)
			placeholder := false
			if ev.omitted[pathKey(ct)] {
				// An omitted "exactly one of" field stays as _, so that its object still
				// sets the one field it set.
				if !ev.alternative[k] || ev.extra[pathKey(ct)] {
					continue
				}
				placeholder = true
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			if placeholder {
				b.WriteByte('_')
				continue
			}
			ev.emit(b, x[k], ct)
		}
		for k := range ev.added {
			if p := strings.Split(k, "\x00"); len(p) == len(toks)+1 && pathKey(p[:len(toks)]) == pathKey(toks) {
				if _, exists := x[p[len(p)-1]]; !exists {
					if n > 0 {
						b.WriteByte(',')
					}
					n++
					q, _ := json.Marshal(p[len(p)-1])
					b.Write(q)
					b.WriteString(":_")
				}
			}
		}
		b.WriteByte('}')
	default:
		q, err := json.Marshal(x)
		if err != nil {
			b.WriteString("_|_")
			return
		}
		b.Write(q)
	}
}

// number writes a float as CUE: an integer literal when it is integral (JSON Schema counts 1.0
// as an integer; CUE would not), else the shortest float literal.
func number(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
