// Package field describes where in an object a validation error is: a Path such as
// spec.containers[2].name, and typed errors that carry the path, a rule ID and a severity, in
// the shape of Kubernetes' apimachinery field.ErrorList.
package field

import (
	"strconv"
	"strings"
)

// Path is an immutable location in an object, built from the root with Child, Index and Key.
type Path struct {
	name   string // a field name ('f') or a map key ('k'); "" for an index
	index  int    // valid for an index ('i')
	kind   byte   // 'f' field, 'i' index, 'k' key
	parent *Path
}

// NewPath starts a path at a top-level field, e.g. NewPath("spec").
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name, kind: 'f'}
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child returns the path to a field of this one.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{name: name, kind: 'f', parent: p}
	for _, m := range more {
		c = c.Child(m)
	}
	return c
}

// Index returns the path to an element of a list.
func (p *Path) Index(i int) *Path { return &Path{index: i, kind: 'i', parent: p} }

// Key returns the path to an entry of a map.
func (p *Path) Key(k string) *Path { return &Path{name: k, kind: 'k', parent: p} }

func (p *Path) steps() []*Path {
	var out []*Path
	for q := p; q != nil; q = q.parent {
		out = append(out, q)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// String renders the path as Kubernetes does: spec.containers[2].env[FOO].
func (p *Path) String() string {
	if p == nil {
		return "<root>"
	}
	var b strings.Builder
	for i, s := range p.steps() {
		switch s.kind {
		case 'f':
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		case 'i':
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case 'k':
			b.WriteString("[" + s.name + "]")
		}
	}
	return b.String()
}

// Tokens returns the path as JSON-pointer reference tokens (unescaped), the form the source
// position lookup and JSON Schema instance locations use.
func (p *Path) Tokens() []string {
	if p == nil {
		return nil
	}
	steps := p.steps()
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		switch s.kind {
		case 'f':
			out = append(out, s.name)
		case 'i':
			out = append(out, strconv.Itoa(s.index))
		case 'k':
			out = append(out, s.name)
		}
	}
	return out
}

// PathFromTokens builds a Path from JSON-pointer tokens; all-digit tokens become indexes.
func PathFromTokens(toks []string) *Path {
	var p *Path
	for _, t := range toks {
		if n, err := strconv.Atoi(t); err == nil && n >= 0 && strconv.Itoa(n) == t && p != nil {
			p = p.Index(n)
			continue
		}
		if p == nil {
			p = NewPath(t)
		} else {
			p = p.Child(t)
		}
	}
	return p
}
