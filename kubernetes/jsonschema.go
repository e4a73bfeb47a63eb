package kubernetes

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// JSONSchema writes a strict JSON Schema (draft-07: unknown fields refused, enumerations,
// required fields, integer ranges) of a kind this package reads, derived from the same API
// types the strict decoder uses. It is what a JSON Schema validator such as kubeconform is given
// in bench/peers to validate the same documents as podspec, in the form of kubeconform's
// "standalone-strict" schemas (every definition inline under "definitions").
func JSONSchema(kind string) ([]byte, error) {
	var root reflect.Type
	for _, k := range kinds {
		if k.kind == kind {
			root = reflect.TypeOf(k.new()).Elem()
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no kind %q", kind)
	}
	g := schemaGen{defs: map[string]any{}, infos: structInfos()}
	g.schema(root)
	top := map[string]any{"$schema": "http://json-schema.org/draft-07/schema#"}
	for k, v := range g.defs[root.Name()].(map[string]any) {
		top[k] = v
	}
	top["definitions"] = g.defs
	return json.MarshalIndent(top, "", " ")
}

type schemaGen struct {
	defs  map[string]any
	infos map[reflect.Type]*structInfo
}

func (g *schemaGen) schema(t reflect.Type) any {
	if t.Kind() == reflect.Pointer {
		return g.schema(t.Elem())
	}
	switch t {
	case reflect.TypeFor[Quantity]():
		return map[string]any{"oneOf": []any{map[string]any{"type": "string", "pattern": quantityPattern().String()}, map[string]any{"type": "number"}}}
	case reflect.TypeFor[IntOrString]():
		return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer", "minimum": math.MinInt32, "maximum": math.MaxInt32}}}
	case reflect.TypeFor[Time]():
		return map[string]any{"type": []any{"string", "null"}, "format": "date-time"}
	case reflect.TypeFor[Duration](), reflect.TypeFor[Bytes]():
		return map[string]any{"type": "string"}
	case reflect.TypeFor[RawJSON]():
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.String:
		s := map[string]any{"type": "string"}
		if t.Implements(enumerationType) {
			s["enum"] = reflect.Zero(t).Interface().(enumeration).values()
		}
		return s
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "minimum": math.MinInt32, "maximum": math.MaxInt32}
	case reflect.Int64, reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": []any{"array", "null"}, "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": []any{"object", "null"}, "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		name := t.Name()
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // a placeholder while its fields are described (types recurse)
			info := g.infos[t]
			props := map[string]any{}
			for jsonName, idx := range info.fields {
				s := g.schema(t.FieldByIndex(idx).Type)
				if !slices.Contains(info.required, jsonName) {
					s = orNull(s)
				}
				props[jsonName] = s
			}
			def := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if len(info.required) > 0 && !strings.HasSuffix(name, "Status") {
				def["required"] = info.required
			}
			g.defs[name] = def
		}
		return map[string]any{"$ref": "#/definitions/" + name}
	}
	return map[string]any{}
}

// orNull lets a field's value be null too, which Kubernetes (and the strict decoder) read as
// absent: `rollingUpdate:` with nothing after the colon. A required field stays non-null.
func orNull(s any) any {
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}
