// Package schemagen turns the repository's Go types into the JSON Schemas
// it publishes: the scenario file schema (docs/scenario.schema.json) and
// the schemas of the OpenAPI document (docs/openapi.json). It wraps
// github.com/invopop/jsonschema, which reflects struct tags and Go doc
// comments, and adds what the repository's types need: clock.Duration as
// a duration string, descriptions without internal references, and
// helpers to attach the validators' rules (enums, ranges, patterns) to
// the reflected properties.
//
// Only tests import it (they generate and check the committed documents),
// so neither the library nor the reflection reaches mockd or a user's
// binary.
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

// DurationPattern matches a non-negative Go duration ("800ms", "1h30m",
// "0"), as time.ParseDuration reads it.
const DurationPattern = `^\+?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// Package names a Go package whose doc comments become descriptions: its
// import path and its directory (relative to the working directory).
type Package struct{ ImportPath, Dir string }

// Options configure a Reflector.
type Options struct {
	// Tag is the struct tag that names fields: "yaml" or "json".
	Tag string
	// AllowAdditional leaves objects open; by default a struct's schema
	// refuses keys it does not declare.
	AllowAdditional bool
	// Comments are the packages whose doc comments describe the types.
	Comments []Package
	// Names renames types whose names collide (faults.Rule and
	// scenario.Rule): a full type name ("pkg.Type") to its schema name.
	Names map[string]string
	// Mapper gives the schema of types that read and write their own text
	// (nil: the reflected one); it returns a fresh schema per call, or nil
	// to reflect the type.
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
		// The library keys comments by base joined with each file's
		// directory: read them under a placeholder base, then key them by
		// the package's import path, wherever its directory is.
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

// mapType gives the schemas of types the library would get wrong: a
// clock.Duration is an int64 that reads and writes as a string. Each call
// returns a fresh schema (the library writes descriptions into it).
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

// internalRef matches a parenthesised reference to a Go source file
// ("(engine_seed.go)"), which means nothing to a reader of a schema.
var internalRef = regexp.MustCompile(`\s*\([a-z_]+\.go\b[^)]*\)`)

// Clean tidies a doc comment into a description: one paragraph per blank
// line, lines joined, references to Go source files dropped.
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

// Def returns the definition of a type by schema name ("": the root);
// it panics when there is none (a generator bug that its test reports at
// once).
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

// Prop returns property name of an object schema; it panics when there
// is none.
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

// Marshal encodes a schema (or any document) as indented JSON with a
// final newline, without escaping <, > and &.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// The library marshals its schemas itself, escaping HTML characters
	// inside them; they are only ever its escapes.
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
