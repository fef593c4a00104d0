// Package openapigen generates the repository's OpenAPI 3.1 documents
// (docs/openapi.json via internal/docgen, docs/control.openapi.json) from
// route tables, reflecting Go types into component schemas with schemagen.
// Only tests and the document generator import it (imports_test.go keeps
// it so).
package openapigen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/invopop/jsonschema"

	"github.com/agentplatform/mockplatform/internal/apispec"
	"github.com/agentplatform/mockplatform/internal/schemagen"
)

// Obj is a JSON object of a document.
type Obj = map[string]any

// Tag describes a group of operations.
type Tag struct{ Name, Doc string }

// Options say how a document reflects its types.
type Options struct {
	// LaxInputs reads request bodies as the emulated API does: objects
	// open to undeclared keys, a null map read as absent.
	LaxInputs bool
	// AlwaysInput suffixes every request body type's name with Input.
	AlwaysInput bool
	// Rules gives a function (or nil) that writes the rules of struct t's
	// field into its property p and says whether it is required or nullable.
	Rules func(t reflect.Type, def Obj) func(name string, p Obj) (required, nullable bool)
}

// Doc is a document being generated; Bytes returns the first error met.
type Doc struct {
	Schemas          Obj // component schemas, by name
	opts             Options
	answers, inputs  *jsonschema.Reflector
	responses, paths Obj
	renamed          map[string]string // request types named apart from the answer type of their name
	ids              map[string]string // operationId -> its route
	err              error
}

// New returns an empty document.
func New(o Options) (*Doc, error) {
	d := &Doc{Schemas: Obj{}, opts: o, responses: Obj{}, paths: Obj{}, renamed: map[string]string{}, ids: map[string]string{}}
	for _, input := range []bool{false, true} {
		r, err := schemagen.NewReflector(schemagen.Options{Tag: "json", AllowAdditional: input && o.LaxInputs})
		if err != nil {
			return nil, err
		}
		r.ExpandedStruct = false
		r.Namer = func(t reflect.Type) string { return d.name(t, input) }
		if input {
			d.inputs = r
		} else {
			d.answers = r
		}
	}
	return d, nil
}

// name is a type's schema name, UpperCamel.
func (d *Doc) name(t reflect.Type, input bool) string {
	n := t.Name()
	if n == "" {
		return ""
	}
	r := []rune(n)
	r[0] = unicode.ToUpper(r[0])
	n = strings.ReplaceAll(string(r), "Quries", "Queries")
	if input && d.opts.AlwaysInput && !strings.HasSuffix(n, "Input") {
		n += "Input"
	}
	return n
}

// Fail records an error of the document (the first one sticks).
func (d *Doc) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// Schema reflects the type of v into components and returns a reference
// to it. A request type that differs from the answer type of its name
// gets the suffix Input.
func (d *Doc) Schema(v any, input bool) any {
	if s, ok := v.(apispec.Schema); ok {
		return Obj(s)
	}
	t := reflect.TypeOf(v)
	r := d.answers
	if input {
		r = d.inputs
	}
	var root Obj
	d.remarshal(r.ReflectFromType(t), &root)
	defs, _ := root["$defs"].(Obj)
	for _, k := range []string{"$defs", "$schema", "$id"} {
		delete(root, k)
	}
	d.applyTypes(t, defs, input, map[reflect.Type]bool{})
	rename := map[string]string{}
	if input {
		rename = d.renamed // the request types renamed so far
	}
	// fix points $defs references at the components, renamed.
	fix := func(x any) any {
		b, err := json.Marshal(x)
		d.Fail(err)
		s := strings.ReplaceAll(string(b), `"#/$defs/`, `"#/components/schemas/`)
		for from, to := range rename {
			s = strings.ReplaceAll(s, `"#/components/schemas/`+from+`"`, `"#/components/schemas/`+to+`"`)
		}
		var y any
		d.Fail(json.Unmarshal([]byte(s), &y))
		return y
	}
	for changed := true; changed; {
		changed = false
		for name, def := range defs {
			if _, done := rename[name]; done {
				continue
			}
			if prev, ok := d.Schemas[name]; ok && !equal(prev, fix(def)) {
				if !input || d.opts.AlwaysInput {
					d.Fail(fmt.Errorf("openapigen: two types are named %s:\n%v\n%v", name, prev, fix(def)))
					continue
				}
				rename[name], changed = name+"Input", true
			}
		}
	}
	for name, def := range defs {
		if to, ok := rename[name]; ok {
			name = to
		}
		d.Schemas[name] = fix(def)
	}
	return fix(root)
}

// applyTypes applies the document's rules, required and nullable fields
// to the definitions of the struct types reachable from t.
func (d *Doc) applyTypes(t reflect.Type, defs Obj, input bool, done map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || done[t] || t.PkgPath() == "time" {
		return
	}
	done[t] = true
	def, _ := defs[d.name(t, input)].(Obj)
	var rules func(string, Obj) (bool, bool)
	if d.opts.Rules != nil {
		rules = d.opts.Rules(t, def)
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		d.applyTypes(f.Type, defs, input, done)
		props, _ := def["properties"].(Obj)
		p, ok := props[name].(Obj)
		if !ok {
			continue
		}
		required, null := false, false
		if rules != nil {
			required, null = rules(name, p)
		}
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		if required || (!input && !omit) {
			req, _ := def["required"].([]any)
			def["required"] = append(req, name)
		}
		k := f.Type.Kind()
		if null || (k == reflect.Pointer && !omit) || (input && (k == reflect.Pointer || (k == reflect.Map && d.opts.LaxInputs))) {
			props[name] = nullable(p)
		}
	}
}

// nullable lets a property be null too.
func nullable(p Obj) Obj {
	if t, ok := p["type"].(string); ok {
		p["type"] = []any{t, "null"}
		switch e := p["enum"].(type) {
		case []string:
			p["enum"] = append(schemagen.Strings(e), nil)
		case []any:
			p["enum"] = append(slices.Clone(e), nil)
		}
		return p
	}
	out := Obj{"anyOf": []any{p, Obj{"type": "null"}}}
	for _, k := range []string{"description", "x-mock-fidelity"} {
		if v, ok := p[k]; ok {
			out[k] = v
			delete(p, k)
		}
	}
	return out
}

// Path turns gin's path template into OpenAPI's and lists its parameters.
func Path(p string) (string, []string) {
	var names []string
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
			names = append(names, name)
		}
	}
	return strings.Join(segs, "/"), names
}

// Add adds the operation op of a route, path in gin's form.
func (d *Doc) Add(method, path string, op Obj) {
	id, _ := op["operationId"].(string)
	if prev, dup := d.ids[id]; dup {
		d.Fail(fmt.Errorf("openapigen: operationId %s of %s %s is also %s's", id, method, path, prev))
	}
	d.ids[id] = method + " " + path
	p, _ := Path(path)
	item, _ := d.paths[p].(Obj)
	if item == nil {
		item = Obj{}
		d.paths[p] = item
	}
	item[strings.ToLower(method)] = op
}

// Response refers to the shared response name, built once by build.
func (d *Doc) Response(name string, build func() Obj) Obj {
	if _, ok := d.responses[name]; !ok {
		d.responses[name] = build()
	}
	return Obj{"$ref": "#/components/responses/" + name}
}

// ByStatus groups an operation's answers by status.
func ByStatus[R any](answers []R, status func(R) int) map[int][]R {
	out := map[int][]R{}
	for _, r := range answers {
		out[status(r)] = append(out[status(r)], r)
	}
	return out
}

// Bytes is the document, or the first error met.
func (d *Doc) Bytes(title, description string, tags []Tag, components Obj) ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	var tagList []any
	for _, t := range tags {
		tagList = append(tagList, Obj{"name": t.Name, "description": t.Doc})
	}
	components["schemas"], components["responses"] = d.Schemas, d.responses
	doc := Obj{
		"openapi":    "3.1.0",
		"info":       Obj{"title": title, "version": "mock", "description": description},
		"tags":       tagList,
		"paths":      d.paths,
		"components": components,
	}
	sortRequired(doc)
	return schemagen.Marshal(doc)
}

// sortRequired sorts the required lists (they are collected from maps).
func sortRequired(v any) {
	switch v := v.(type) {
	case Obj:
		for k, x := range v {
			if list, ok := x.([]any); ok && k == "required" {
				sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
			}
			sortRequired(x)
		}
	case []any:
		for _, x := range v {
			sortRequired(x)
		}
	}
}

func (d *Doc) remarshal(in, out any) {
	b, err := json.Marshal(in)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	d.Fail(err)
}

func equal(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}
