package manifest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"podspec.dev/podspec/api/v1alpha1"
)

// maxAliasHops bounds alias-to-alias chains while resolving positions.
const maxAliasHops = 64

// Position resolves JSON-pointer tokens to a 1-based line/column (the key node when onKey).
// Missing tokens resolve to the deepest existing ancestor: the key of the mapping that lacks
// the field (what a "required" error points at), or, for a field missing at the top level, the
// document's first key. It returns 0, 0 only for a document without nodes.
func (d *Document) Position(tokens []string, onKey bool) (line, col int) {
	if d == nil || d.Root() == nil {
		return 0, 0
	}
	n := d.Root()
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return n.Line, n.Column
		}
		n = n.Content[0]
	}
	// anchor is where a missing token is reported: the key that led to n, or n itself.
	anchor := n
	var key *yaml.Node
	for _, t := range tokens {
		n = deref(n)
		switch n.Kind {
		case yaml.MappingNode:
			k, v := lookupKey(n, t, 0)
			if v == nil {
				return anchor.Line, anchor.Column
			}
			key, n, anchor = k, v, k
		case yaml.SequenceNode:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n.Content) {
				return anchor.Line, anchor.Column
			}
			key, n = nil, n.Content[i]
			anchor = deref(n)
		default:
			return anchor.Line, anchor.Column
		}
	}
	if onKey && key != nil {
		return key.Line, key.Column
	}
	return n.Line, n.Column
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < maxAliasHops && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

// lookupKey finds the entry for key in mapping n: the last explicit one (the one whose value
// won), else one from a merge source. hops bounds merge chains.
func lookupKey(n *yaml.Node, key string, hops int) (k, v *yaml.Node) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn := n.Content[i]
		if isMergeKey(kn) {
			merges = append(merges, n.Content[i+1])
			continue
		}
		if keyMatches(kn, key) {
			k, v = kn, n.Content[i+1]
		}
	}
	if v != nil || hops >= maxAliasHops {
		return k, v
	}
	for _, m := range merges {
		m = deref(m)
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			s = deref(s)
			if s.Kind != yaml.MappingNode {
				continue
			}
			if k, v = lookupKey(s, key, hops+1); v != nil {
				return k, v
			}
		}
	}
	return nil, nil
}

// keyMatches reports whether a key node converts to key (e.g. the plain key on → "true").
func keyMatches(kn *yaml.Node, key string) bool {
	if kn.Kind != yaml.ScalarNode {
		return false
	}
	s, _ := keyString(kn)
	return s == key
}

// Pod decodes the document into the typed Pod, without defaulting. Unknown fields are ignored
// here (the schema engine reports them); a value of the wrong type is an error.
func (d *Document) Pod() (*v1alpha1.Pod, error) {
	p := new(v1alpha1.Pod)
	if err := d.decodeInto(p); err != nil {
		return nil, fmt.Errorf("decode pod: %w", err)
	}
	return p, nil
}

// Notification decodes the document into the typed Notification, without defaulting.
func (d *Document) Notification() (*v1alpha1.Notification, error) {
	n := new(v1alpha1.Notification)
	if err := d.decodeInto(n); err != nil {
		return nil, fmt.Errorf("decode notification: %w", err)
	}
	return n, nil
}

func (d *Document) decodeInto(out any) error {
	td := typedDecoder{}
	if err := td.decode(d.Value, reflect.ValueOf(out)); err != nil {
		return err
	}
	return nil
}

// DecodeError is a value of a document that does not fit its field of the typed API object:
// a value of the wrong JSON type, or a number beyond the range of the Go field (an integer
// beyond 64 bits, 3000000000 in a 32-bit field).
type DecodeError struct {
	// Tokens locate the value as JSON-pointer tokens.
	Tokens []string
	// Value is the value as decoded (an integer beyond 64 bits is a float64).
	Value any
	// Want is the JSON type the field takes (integer, number, string, boolean, array, object),
	// or "" when the field's own JSON decoder refused the value (Err says why).
	Want string
	// Op and Limit are set for a number of the right type beyond the field's range: the bound
	// it crosses, such as "<=" and "9223372036854775807".
	Op, Limit string
	// Err describes the problem.
	Err error
}

func (e DecodeError) Error() string { return "/" + strings.Join(e.Tokens, "/") + ": " + e.Err.Error() }

// PartialPod decodes the document into the typed Pod as Pod does, except that a value that does
// not fit its field leaves that field unset (a pointer nil, a list element zero) and decoding
// goes on: it returns the Pod with every value that fits, and every value that does not (none
// exactly when Pod succeeds). The validator runs its semantic checks on that Pod.
func (d *Document) PartialPod() (*v1alpha1.Pod, []DecodeError) {
	p := new(v1alpha1.Pod)
	return p, d.decodePartial(p)
}

// PartialNotification is PartialPod for a Notification.
func (d *Document) PartialNotification() (*v1alpha1.Notification, []DecodeError) {
	n := new(v1alpha1.Notification)
	return n, d.decodePartial(n)
}

func (d *Document) decodePartial(out any) []DecodeError {
	td := typedDecoder{partial: true}
	err := td.decode(d.Value, reflect.ValueOf(out))
	if err == nil {
		return nil
	}
	var out2 []DecodeError
	for _, te := range typeErrors(nil).within(err, "") {
		toks := make([]string, 0, len(te.path))
		for i := len(te.path) - 1; i >= 0; i-- {
			if seg := te.path[i]; seg != "" {
				toks = append(toks, strings.TrimSuffix(seg[1:], "]"))
			}
		}
		de := DecodeError{Tokens: toks, Value: te.value, Want: te.want, Err: te.err}
		if te.outOfRange {
			de.Op, de.Limit = te.op, te.limit
		}
		out2 = append(out2, de)
	}
	return out2
}
