// Package schemagen turns the repository's Go types into the published
// JSON Schemas (docs/scenario.schema.json, docs/openapi.json), wrapping
// github.com/invopop/jsonschema. Only tests import it, so the library
// never reaches mockd or a user's binary.
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/invopop/jsonschema"
	orderedmap "github.com/pb33f/ordered-map/v2"

	"github.com/agentplatform/mockplatform/clock"
)

// Schema is a JSON Schema as the library builds it.
type Schema = jsonschema.Schema

// DurationPattern matches a non-negative Go duration ("800ms", "1h30m").
const DurationPattern = `^\+?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// Package names a Go package whose doc comments become descriptions.
type Package struct{ ImportPath, Dir string }

// Options configure a Reflector.
type Options struct {
	Tag             string // struct tag naming fields: "yaml" or "json"
	AllowAdditional bool   // leave objects open to undeclared keys
	Comments        []Package
	// Names renames colliding types: "pkg.Type" to its schema name.
	Names map[string]string
	// Mapper returns a fresh schema for a type, or nil to reflect it.
	Mapper func(reflect.Type) *Schema
}

// NewReflector returns a reflector for the repository's types.
func NewReflector(o Options) (*jsonschema.Reflector, error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               o.Tag,
		RequiredFromJSONSchemaTags: true,
		AllowAdditionalProperties:  o.AllowAdditional,
		ExpandedStruct:             true,
		Anonymous:                  true,
		Mapper: func(t reflect.Type) *Schema {
			if o.Mapper != nil {
				if s := o.Mapper(t); s != nil {
					return s
				}
			}
			return mapType(t)
		},
		Namer: func(t reflect.Type) string {
			if n, ok := o.Names[t.String()]; ok {
				return n
			}
			return ""
		},
	}
	for _, p := range o.Comments {
		// Read under a placeholder base, then re-key by import path.
		const base = "schemagen.base"
		found := map[string]string{}
		if err := r.AddGoComments(base, p.Dir); err != nil {
			return nil, fmt.Errorf("schemagen: comments of %s: %w", p.ImportPath, err)
		}
		prefix := path.Join(base, filepath.ToSlash(p.Dir)) + "."
		for k, v := range r.CommentMap {
			if rest, ok := strings.CutPrefix(k, prefix); ok {
				delete(r.CommentMap, k)
				found[p.ImportPath+"."+rest] = v
			}
		}
		maps.Copy(r.CommentMap, found)
	}
	for k, v := range r.CommentMap {
		r.CommentMap[k] = Clean(v)
	}
	return r, nil
}

var durationType = reflect.TypeFor[clock.Duration]()

// mapType gives the schemas the library would get wrong (clock.Duration
// is a string); each call returns a fresh one, as the library mutates it.
func mapType(t reflect.Type) *Schema {
	if t == durationType {
		return Duration()
	}
	return nil
}

// Duration is the schema of a duration string.
func Duration() *Schema {
	return &Schema{Type: "string", Pattern: DurationPattern}
}

// internalRef matches a reference to a Go source file ("(engine_seed.go)").
var internalRef = regexp.MustCompile(`\s*\([a-z_]+\.go\b[^)]*\)`)

// Clean tidies a doc comment into a description, dropping source references.
func Clean(s string) string {
	s = internalRef.ReplaceAllString(s, "")
	paras := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paras {
		paras[i] = strings.Join(strings.Fields(p), " ")
	}
	return strings.Join(paras, "\n\n")
}

// Strings turns a list of strings into enum values.
func Strings(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// Number is a JSON number for minimum and maximum.
func Number[T int | int64 | float64](v T) json.Number {
	return json.Number(fmt.Sprint(v))
}

// Def returns the definition of a type by schema name ("": the root); it
// panics when there is none.
func Def(root *Schema, name string) *Schema {
	if name == "" {
		return root
	}
	d, ok := root.Definitions[name]
	if !ok {
		panic("schemagen: no definition " + name)
	}
	return d
}

// Prop returns property name of an object schema, or panics.
func Prop(s *Schema, name string) *Schema {
	if s.Properties == nil {
		panic("schemagen: no properties for " + name)
	}
	p, ok := s.Properties.Get(name)
	if !ok {
		panic("schemagen: no property " + name)
	}
	return p
}

// Marshal encodes v as indented JSON without escaping <, > and &.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// The library escapes HTML inside its own marshalling.
	b := buf.Bytes()
	for esc, lit := range map[string]string{`\u003c`: "<", `\u003e`: ">", `\u0026`: "&"} {
		b = bytes.ReplaceAll(b, []byte(esc), []byte(lit))
	}
	return b, nil
}

// Properties are the ordered properties of an object schema.
type Properties = orderedmap.OrderedMap[string, *Schema]

// NewProperties returns empty properties.
func NewProperties() *Properties { return jsonschema.NewProperties() }

// FalseSchema refuses every value (additionalProperties: false).
var FalseSchema = jsonschema.FalseSchema
