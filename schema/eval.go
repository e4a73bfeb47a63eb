package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file is the validation engine: an evaluator of the subset of JSON Schema draft 2020-12
// that the generated schemas use, producing Violations directly. It exists because a general
// JSON Schema library costs every process that validates about 30 ms before the first document
// (compiling the meta-schemas of five drafts at init, then the schema itself), and `podspec run`
// validates on the start path of every pod. Compiling a schema here is a JSON parse and a dozen
// regular expressions.
//
// The subset is closed: compileSchema refuses any keyword it does not implement, so a change to
// the CUE source that generates a new keyword fails the tests instead of being ignored. Package
// schema/oracle renders the verdict of github.com/santhosh-tekuri/jsonschema/v6 as Violations,
// and tests require both to report identical violations on the corpus, on mutated documents and
// under fuzzing.

// jsonType is a set of JSON Schema types, as a bit set.
type jsonType uint8

const (
	typeNull jsonType = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// typeNames lists the types in the order type errors name them: bit i is typeNames[i].
var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

// names lists the types of a set, in the canonical order.
func (t jsonType) names() []string {
	var out []string
	for i, name := range typeNames {
		if t&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// node is one compiled schema object (or the boolean schema true).
type node struct {
	always bool // the schema true: every value is valid

	types    jsonType // 0: any type
	constant any
	hasConst bool
	enum     []any
	hasEnum  bool
	dateTime bool // format: date-time
	ref      *node

	// objects
	required          []string
	properties        map[string]*node
	patternProperties []patternNode
	closed            bool  // additionalProperties: false
	additional        *node // additionalProperties as a schema

	// arrays
	items              *node
	minItems, maxItems int // -1: no bound

	// strings
	pattern *pattern

	// numbers
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *big.Rat
	// ints holds the bounds as int64 when every bound set is an integer in int64's range, so
	// that an integer in range is checked without building a big.Rat.
	ints *intBounds

	not                 *node
	allOf, anyOf, oneOf []*node
}

type patternNode struct {
	re     *pattern
	schema *node
}

// compiler turns one self-contained schema document into nodes.
type compiler struct {
	// open compiles every closed object (additionalProperties: false) as open: the schema of a
	// runtime's output, to which a runtime may add fields (see ValidateOpen). negated counts the
	// enclosing "not"s, under which opening an object would make the schema stricter instead.
	open     bool
	negated  int
	doc      map[string]any
	byRef    map[string]*node    // compiled "$ref" targets, so recursive references terminate
	patterns map[string]*pattern // compiled patterns: the same few recur in every object
}

// regexp compiles a pattern once per document.
func (c *compiler) regexp(expr string) (*pattern, error) {
	if p, ok := c.patterns[expr]; ok {
		return p, nil
	}
	p, err := newPattern(expr)
	if err == nil {
		c.patterns[expr] = p
	}
	return p, err
}

// compileSchema compiles a schema document. It refuses keywords outside the implemented subset
// and references that leave the document.
func compileSchema(data []byte) (*node, error) { return compileSchemaMode(data, false) }

// compileSchemaMode is compileSchema, with every object open when open is set.
func compileSchemaMode(data []byte, open bool) (*node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if s, _ := doc["$schema"].(string); s != "https://json-schema.org/draft/2020-12/schema" {
		return nil, fmt.Errorf("$schema is %q; only draft 2020-12 is supported", s)
	}
	c := &compiler{open: open, doc: doc, byRef: map[string]*node{}, patterns: map[string]*pattern{}}
	return c.compile(doc, "#")
}

// ignoredKeywords are annotations and structure that do not constrain a value by themselves.
var ignoredKeywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$comment": true,
	"description": true, "title": true, "default": true, "examples": true,
}

// compile compiles the schema v found at the JSON pointer loc (for error messages).
func (c *compiler) compile(v any, loc string) (*node, error) {
	if b, ok := v.(bool); ok {
		if !b {
			return nil, fmt.Errorf("%s: the schema false is not supported", loc)
		}
		return &node{always: true}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object or true, not %T", loc, v)
	}
	n := &node{minItems: -1, maxItems: -1}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic errors
	for _, k := range keys {
		if err := c.keyword(n, k, obj[k], loc+"/"+k); err != nil {
			return nil, err
		}
	}
	n.ints = newIntBounds(n)
	return n, nil
}

// intBounds are a node's number bounds as int64s; a bound not set is the widest one.
type intBounds struct {
	min, max int64 // inclusive
}

// newIntBounds returns n's bounds as int64s, or nil when n has none or one is not an integer
// that an int64 holds (exclusive bounds at the ends of int64's range included).
func newIntBounds(n *node) *intBounds {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil {
		return nil
	}
	b := &intBounds{min: math.MinInt64, max: math.MaxInt64}
	for _, bound := range []struct {
		r      *big.Rat
		adjust int64 // an exclusive bound's step to the inclusive one
		lower  bool
	}{{n.minimum, 0, true}, {n.exclusiveMinimum, 1, true}, {n.maximum, 0, false}, {n.exclusiveMaximum, -1, false}} {
		if bound.r == nil {
			continue
		}
		if !bound.r.IsInt() || !bound.r.Num().IsInt64() {
			return nil
		}
		x := bound.r.Num().Int64()
		if bound.adjust > 0 && x == math.MaxInt64 || bound.adjust < 0 && x == math.MinInt64 {
			return nil
		}
		x += bound.adjust
		if bound.lower {
			b.min = max(b.min, x)
		} else {
			b.max = min(b.max, x)
		}
	}
	return b
}

// keyword compiles one keyword of a schema object into n.
func (c *compiler) keyword(n *node, k string, v any, loc string) error {
	var err error
	switch k {
	case "type":
		n.types, err = compileTypes(v, loc)
	case "const":
		n.constant, n.hasConst = v, true
	case "enum":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("%s: must be a non-empty array", loc)
		}
		n.enum, n.hasEnum = list, true
	case "format":
		if v != "date-time" {
			return fmt.Errorf("%s: format %v is not supported (only date-time)", loc, v)
		}
		n.dateTime = true
	case "$ref":
		n.ref, err = c.resolve(v, loc)
	case "required":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: must be an array of names", loc)
		}
		for _, r := range list {
			s, ok := r.(string)
			if !ok {
				return fmt.Errorf("%s: must be an array of names", loc)
			}
			n.required = append(n.required, s)
		}
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: must be an object", loc)
		}
		n.properties = make(map[string]*node, len(props))
		for name, p := range props {
			if n.properties[name], err = c.compile(p, loc+"/"+escapePointer(name)); err != nil {
				return err
			}
		}
	case "patternProperties":
		props, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: must be an object", loc)
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			re, err := c.regexp(name)
			if err != nil {
				return fmt.Errorf("%s: %w", loc, err)
			}
			s, err := c.compile(props[name], loc+"/"+escapePointer(name))
			if err != nil {
				return err
			}
			n.patternProperties = append(n.patternProperties, patternNode{re, s})
		}
	case "additionalProperties":
		if b, ok := v.(bool); ok {
			if !b && c.open {
				if c.negated > 0 {
					return fmt.Errorf("%s: a closed object under \"not\" cannot be opened", loc)
				}
				return nil
			}
			n.closed = !b
			return nil
		}
		n.additional, err = c.compile(v, loc)
	case "items":
		n.items, err = c.compile(v, loc)
	case "minItems":
		n.minItems, err = compileCount(v, loc)
	case "maxItems":
		n.maxItems, err = compileCount(v, loc)
	case "pattern":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: must be a string", loc)
		}
		n.pattern, err = c.regexp(s)
	case "minimum":
		n.minimum, err = compileNumber(v, loc)
	case "maximum":
		n.maximum, err = compileNumber(v, loc)
	case "exclusiveMinimum":
		n.exclusiveMinimum, err = compileNumber(v, loc)
	case "exclusiveMaximum":
		n.exclusiveMaximum, err = compileNumber(v, loc)
	case "not":
		c.negated++
		n.not, err = c.compile(v, loc)
		c.negated--
	case "allOf":
		n.allOf, err = c.compileList(v, loc)
	case "anyOf":
		n.anyOf, err = c.compileList(v, loc)
	case "oneOf":
		n.oneOf, err = c.compileList(v, loc)
	default:
		if !ignoredKeywords[k] {
			return fmt.Errorf("%s: keyword %q is not supported by podspec's schema evaluator", loc, k)
		}
	}
	return err
}

func (c *compiler) compileList(v any, loc string) ([]*node, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: must be a non-empty array of schemas", loc)
	}
	out := make([]*node, len(list))
	for i, s := range list {
		var err error
		if out[i], err = c.compile(s, loc+"/"+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resolve compiles the target of a "$ref", a JSON pointer into the same document. A target is
// compiled once; a reference met while its target is being compiled gets the same node.
func (c *compiler) resolve(v any, loc string) (*node, error) {
	ref, ok := v.(string)
	if !ok || !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("%s: only references into the same document (#/...) are supported, not %v", loc, v)
	}
	if n, ok := c.byRef[ref]; ok {
		return n, nil
	}
	var target any = c.doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := target.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: reference %s does not resolve", loc, ref)
		}
		if target, ok = m[tok]; !ok {
			return nil, fmt.Errorf("%s: reference %s does not resolve", loc, ref)
		}
	}
	n := &node{}
	c.byRef[ref] = n
	compiled, err := c.compile(target, ref)
	if err != nil {
		return nil, err
	}
	*n = *compiled
	return n, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func compileTypes(v any, loc string) (jsonType, error) {
	var names []any
	switch x := v.(type) {
	case string:
		names = []any{x}
	case []any:
		names = x
	}
	var t jsonType
	for _, name := range names {
		s, _ := name.(string)
		i := slices.Index(typeNames, s)
		if i < 0 {
			return 0, fmt.Errorf("%s: unknown type %v", loc, name)
		}
		t |= 1 << i
	}
	if t == 0 {
		return 0, fmt.Errorf("%s: must name at least one type", loc)
	}
	return t, nil
}

func compileCount(v any, loc string) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: must be a non-negative integer", loc)
	}
	i, err := strconv.Atoi(n.String())
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%s: must be a non-negative integer", loc)
	}
	return i, nil
}

func compileNumber(v any, loc string) (*big.Rat, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: must be a number", loc)
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok {
		return nil, fmt.Errorf("%s: %s is not a number", loc, n)
	}
	return r, nil
}

// typeOf returns the JSON type of a decoded value (typeNumber for every number), or 0 for a
// value JSON cannot hold (NaN, infinities, other Go types).
func typeOf(v any) jsonType {
	switch x := v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case string:
		return typeString
	case map[string]any:
		return typeObject
	case []any:
		return typeArray
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0
		}
		return typeNumber
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0
		}
		return typeNumber
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return typeNumber
	}
	return 0
}

// rat returns a number exactly as its shortest decimal form reads (so 0.1 is 1/10).
func rat(v any) *big.Rat {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x)
	case int:
		return new(big.Rat).SetInt64(int64(x))
	}
	r, ok := new(big.Rat).SetString(fmt.Sprint(v))
	if !ok {
		return nil
	}
	return r
}

// equal reports whether two decoded JSON values are equal, numbers by value.
func equal(a, b any) bool {
	ta, tb := typeOf(a), typeOf(b)
	if ta != tb {
		return false
	}
	switch x := a.(type) {
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	if ta == typeNumber {
		ra, rb := rat(a), rat(b)
		return ra != nil && rb != nil && ra.Cmp(rb) == 0
	}
	return a == b
}

// evaluation collects the violations of one document; a nil *evaluation only asks whether a
// value is valid, and stops at the first violation.
type evaluation struct {
	out []Violation
}

func (e *evaluation) add(v Violation) {
	if e != nil {
		v.Tokens = slices.Clone(v.Tokens)
		e.out = append(e.out, v)
	}
}

// valid reports whether v, found at tokens loc, is valid against n, and records in e what it
// breaks: one violation per broken constraint, except that a value of the wrong type, or
// outside its const, enum or format, is reported for that alone (as JSON Schema validators do),
// an "exactly one of" object becomes one NotExactlyOne violation, and an anyOf whose branches
// all fail on the value's type becomes one WrongType violation.
func (n *node) valid(v any, loc []string, e *evaluation) bool {
	if n.always {
		return true
	}
	t := typeOf(v)
	if t == 0 {
		e.add(Violation{Kind: Other, Tokens: loc, Value: v, HasValue: true, Want: []string{NotJSONValue}})
		return false
	}
	if n.types != 0 && n.types&t == 0 && (n.types&typeInteger == 0 || t != typeNumber || !isInteger(v)) {
		e.add(Violation{Kind: WrongType, Tokens: loc, Value: v, HasValue: true, Want: n.types.names()})
		return false
	}
	if n.hasConst && !equal(v, n.constant) {
		e.add(Violation{Kind: NotConst, Tokens: loc, Value: v, HasValue: true, Want: []string{Display(n.constant)}})
		return false
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(x any) bool { return equal(v, x) }) {
		want := make([]string, len(n.enum))
		for i, x := range n.enum {
			want[i] = Display(x)
		}
		e.add(Violation{Kind: NotInEnum, Tokens: loc, Value: v, HasValue: true, Want: want})
		return false
	}
	if s, ok := v.(string); ok && n.dateTime && !IsDateTime(s) {
		e.add(Violation{Kind: BadFormat, Tokens: loc, Value: v, HasValue: true, Want: []string{"date-time"}})
		return false
	}
	ok := true
	// Each check runs even when an earlier one failed (all violations are reported), unless
	// only validity is asked.
	check := func(valid bool) bool {
		ok = ok && valid
		return ok || e != nil
	}
	if n.ref != nil && !check(n.ref.valid(v, loc, e)) {
		return false
	}
	var more bool
	switch x := v.(type) {
	case map[string]any:
		more = check(n.validObject(x, loc, e))
	case []any:
		more = check(n.validArray(x, loc, e))
	case string:
		more = check(n.pattern == nil || n.validString(x, loc, e))
	default:
		more = check(t != typeNumber || n.validNumber(v, loc, e))
	}
	if !more {
		return false
	}
	if n.not != nil && n.not.valid(v, loc, nil) {
		if !check(false) {
			return false
		}
		n.reportNot(v, loc, e)
	}
	for _, sub := range n.allOf {
		if !check(sub.valid(v, loc, e)) {
			return false
		}
	}
	if len(n.anyOf) > 0 && !slices.ContainsFunc(n.anyOf, func(sub *node) bool { return sub.valid(v, loc, nil) }) {
		if !check(false) {
			return false
		}
		n.reportAnyOf(v, loc, e)
	}
	if len(n.oneOf) > 0 {
		matched := 0
		for _, sub := range n.oneOf {
			if sub.valid(v, loc, nil) {
				if matched++; matched > 1 {
					break
				}
			}
		}
		if matched != 1 {
			if !check(false) {
				return false
			}
			n.reportOneOf(v, loc, e, matched)
		}
	}
	return ok
}

// NotJSONValue is the message of the violation (kind Other) of a NaN or an infinity, which YAML
// can write and JSON cannot.
const NotJSONValue = "must be a JSON value (NaN and infinities are not)"

func isInteger(v any) bool {
	switch x := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float64:
		return x == math.Trunc(x)
	}
	r := rat(v)
	return r != nil && r.IsInt()
}

func (n *node) validObject(obj map[string]any, loc []string, e *evaluation) bool {
	ok := true
	for _, name := range n.required {
		if _, has := obj[name]; !has {
			ok = false
			e.add(Violation{Kind: Missing, Tokens: loc, Names: []string{name}})
		}
	}
	if !ok && e == nil {
		return false
	}
	for key, val := range obj {
		// at shares loc's array with its siblings: nothing keeps it past the call (add clones).
		at := append(loc, key)
		evaluated := false
		if p, has := n.properties[key]; has {
			evaluated = true
			ok = p.valid(val, at, e) && ok
		}
		for _, pp := range n.patternProperties {
			if pp.re.MatchString(key) {
				evaluated = true
				ok = pp.schema.valid(val, at, e) && ok
			}
		}
		switch {
		case evaluated:
		case n.closed:
			ok = false
			e.add(Violation{Kind: UnknownField, Tokens: at})
		case n.additional != nil:
			ok = n.additional.valid(val, at, e) && ok
		}
		if !ok && e == nil {
			return false
		}
	}
	return ok
}

func (n *node) validArray(arr []any, loc []string, e *evaluation) bool {
	ok := true
	if n.minItems >= 0 && len(arr) < n.minItems {
		ok = false
		e.add(Violation{Kind: TooFewItems, Tokens: loc, Value: arr, HasValue: true, Limit: strconv.Itoa(n.minItems)})
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		ok = false
		e.add(Violation{Kind: TooManyItems, Tokens: loc, Value: arr, HasValue: true, Limit: strconv.Itoa(n.maxItems)})
	}
	if n.items != nil {
		for i, item := range arr {
			if !ok && e == nil {
				return false
			}
			ok = n.items.valid(item, append(loc, strconv.Itoa(i)), e) && ok
		}
	}
	return ok
}

func (n *node) validString(s string, loc []string, e *evaluation) bool {
	if n.pattern.MatchString(s) {
		return true
	}
	e.add(Violation{Kind: NoPatternMatch, Tokens: loc, Value: s, HasValue: true, Pattern: n.pattern.String()})
	return false
}

func (n *node) validNumber(v any, loc []string, e *evaluation) bool {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil {
		return true
	}
	if x, isInt := v.(int64); isInt && n.ints != nil && x >= n.ints.min && x <= n.ints.max {
		return true // in range; a value out of range is reported below, from the exact bounds
	}
	r := rat(v)
	ok := true
	bound := func(limit *big.Rat, op string, broken func(c int) bool) {
		if limit != nil && broken(r.Cmp(limit)) {
			ok = false
			e.add(Violation{Kind: OutOfRange, Tokens: loc, Value: v, HasValue: true, Op: op, Limit: limit.RatString()})
		}
	}
	bound(n.minimum, ">=", func(c int) bool { return c < 0 })
	bound(n.maximum, "<=", func(c int) bool { return c > 0 })
	bound(n.exclusiveMinimum, ">", func(c int) bool { return c <= 0 })
	bound(n.exclusiveMaximum, "<", func(c int) bool { return c >= 0 })
	return ok
}

// reportNot records an object that matches its "not" schema: when that schema requires
// fields, they must not be set together (Exclusive).
func (n *node) reportNot(v any, loc []string, e *evaluation) {
	if _, isObj := v.(map[string]any); !isObj {
		return // a "not" of the generated schemas only matches objects
	}
	if names := n.not.required; len(names) > 0 {
		e.add(Violation{Kind: Exclusive, Tokens: loc, Names: names})
		return
	}
	e.add(Violation{Kind: Other, Tokens: loc, Value: v, HasValue: true, Want: []string{`must not match the schema under "not"`}})
}

// reportAnyOf records a value that matches no branch of its anyOf: the violations of the
// branches whose type fits the value, or one WrongType violation when none does.
func (n *node) reportAnyOf(v any, loc []string, e *evaluation) {
	if e == nil {
		return
	}
	var wants []string
	var fitting []Violation
	nfitting := 0
	for _, sub := range n.anyOf {
		var branch evaluation
		sub.valid(v, loc, &branch)
		typeOnly := len(branch.out) > 0 && !slices.ContainsFunc(branch.out, func(x Violation) bool {
			return x.Kind != WrongType || !slices.Equal(x.Tokens, loc)
		})
		if !typeOnly {
			nfitting++
			fitting = append(fitting, branch.out...)
			continue
		}
		for _, x := range branch.out {
			wants = append(wants, x.Want...)
		}
	}
	if nfitting == 0 {
		e.add(Violation{Kind: WrongType, Tokens: loc, Value: v, HasValue: true, Want: dedupe(wants)})
		return
	}
	e.out = append(e.out, fitting...)
}

// reportOneOf records an object that matches none or several of its oneOf branches. When the
// branches each require one field ("exactly one of"), that is one NotExactlyOne violation
// listing the fields it sets; otherwise, when no branch matches, the branches' violations.
func (n *node) reportOneOf(v any, loc []string, e *evaluation, matched int) {
	obj, isObj := v.(map[string]any)
	if !isObj {
		return // the object's own "type" reports a value of another type
	}
	var names []string
	for _, sub := range n.oneOf {
		names = append(names, sub.required...)
	}
	if len(names) > 0 {
		var set []string
		for _, name := range names {
			if _, ok := obj[name]; ok {
				set = append(set, name)
			}
		}
		e.add(Violation{Kind: NotExactlyOne, Tokens: loc, Names: names, Set: set})
		return
	}
	if matched == 0 {
		for _, sub := range n.oneOf {
			sub.valid(v, loc, e)
		}
	}
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
