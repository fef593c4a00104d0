// Package openapigen generates the repository's OpenAPI 3.1 documents
// from route tables (internal/apispec). control.go generates the control
// plane's (docs/control.openapi.json) from the root package's table of
// control routes: it reflects each operation's request and answer Go
// types into JSON Schema with schemagen, as the scenario schema is, and
// adds what every control call may answer (the guard's refusals).
//
// Only tests import it (imports_test.go keeps it so): the reflection
// library never reaches a binary.
package openapigen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/invopop/jsonschema"

	"github.com/agentplatform/mockplatform/internal/apispec"
	"github.com/agentplatform/mockplatform/internal/schemagen"
)

// obj is a JSON object of the document.
type obj = map[string]any

// Tag describes a group of operations.
type Tag struct{ Name, Doc string }

// ControlInfo is what the control document says of itself.
type ControlInfo struct {
	Title, Description string
	Tags               []Tag
	// ErrorBody is a value of the error answer's type ({"error": "..."}).
	ErrorBody any
}

// Control generates the control plane's document from its routes.
func Control(info ControlInfo, routes []apispec.Route) ([]byte, error) {
	g, err := newGen()
	if err != nil {
		return nil, err
	}
	errRef, err := g.schemaOf(info.ErrorBody, false)
	if err != nil {
		return nil, err
	}
	paths := obj{}
	ids := map[string]bool{}
	responses := obj{}
	for _, rt := range routes {
		if ids[rt.Op.ID] {
			return nil, fmt.Errorf("openapigen: operationId %s is used twice", rt.Op.ID)
		}
		ids[rt.Op.ID] = true
		op, err := g.operation(rt, responses, errRef)
		if err != nil {
			return nil, fmt.Errorf("openapigen: %s %s: %w", rt.Method, rt.Path, err)
		}
		path, _ := Path(rt.Path)
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
	var tags []any
	for _, t := range info.Tags {
		tags = append(tags, obj{"name": t.Name, "description": t.Doc})
	}
	doc := obj{
		"openapi": "3.1.0",
		"info":    obj{"title": info.Title, "version": "mock", "description": info.Description},
		"tags":    tags,
		"paths":   paths,
		"components": obj{
			"schemas":   g.schemas,
			"responses": responses,
			"securitySchemes": obj{
				"controlToken": obj{"type": "http", "scheme": "bearer",
					"description": "The control token mockd was given (--control-token, MOCKD_CONTROL_TOKEN); none is needed without one."},
			},
		},
	}
	sortRequired(doc)
	return schemagen.Marshal(doc)
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

// gen reflects Go types into the document's component schemas.
type gen struct {
	answers, inputs *jsonschema.Reflector
	schemas         obj
}

func newGen() (*gen, error) {
	g := &gen{schemas: obj{}}
	for _, input := range []bool{false, true} {
		r, err := schemagen.NewReflector(schemagen.Options{Tag: "json"})
		if err != nil {
			return nil, err
		}
		r.ExpandedStruct = false
		r.Namer = func(t reflect.Type) string { return componentName(t, input) }
		if input {
			g.inputs = r
		} else {
			g.answers = r
		}
	}
	return g, nil
}

// componentName is a type's schema name: its Go name in UpperCamel case,
// with the suffix Input for a request body's types (a request's rules,
// what is required, differ from an answer's).
func componentName(t reflect.Type, input bool) string {
	n := t.Name()
	if n == "" {
		return ""
	}
	r := []rune(n)
	r[0] = unicode.ToUpper(r[0])
	n = string(r)
	if input && !strings.HasSuffix(n, "Input") {
		n += "Input"
	}
	return n
}

// schemaOf returns the schema of v's type (a reference to a component for
// a named struct) and adds the components it needs.
func (g *gen) schemaOf(v any, input bool) (any, error) {
	if s, ok := v.(apispec.Schema); ok {
		return obj(s), nil
	}
	t := reflect.TypeOf(v)
	r := g.answers
	if input {
		r = g.inputs
	}
	var root obj
	if err := remarshal(r.ReflectFromType(t), &root); err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(obj)
	delete(root, "$defs")
	delete(root, "$schema")
	delete(root, "$id")
	applyTypes(t, defs, input, map[reflect.Type]bool{})
	fixed, err := toComponents(defs)
	if err != nil {
		return nil, err
	}
	fixedDefs, _ := fixed.(obj)
	for name, d := range fixedDefs {
		if prev, ok := g.schemas[name]; ok && !jsonEqual(prev, d) {
			return nil, fmt.Errorf("two different types are named %s", name)
		}
		g.schemas[name] = d
	}
	return toComponents(root)
}

// toComponents points $defs references at the document's components.
func toComponents(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal([]byte(strings.ReplaceAll(string(b), `"#/$defs/`, `"#/components/schemas/`)), &out)
	return out, err
}

// applyTypes walks the struct types reachable from t: in an answer, a
// field without omitempty is required; a pointer without it may be null.
func applyTypes(t reflect.Type, defs obj, input bool, done map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || done[t] || t.PkgPath() == "time" {
		return
	}
	done[t] = true
	def, _ := defs[componentName(t, input)].(obj)
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
		applyTypes(f.Type, defs, input, done)
		props, _ := def["properties"].(obj)
		p, ok := props[name].(obj)
		if !ok {
			continue
		}
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		if !input && !omit {
			req, _ := def["required"].([]any)
			def["required"] = append(req, name)
		}
		if f.Type.Kind() == reflect.Pointer && (!omit || input) {
			props[name] = nullable(p)
		}
	}
}

// nullable lets a property be null too.
func nullable(p obj) obj {
	if t, ok := p["type"].(string); ok {
		p["type"] = []any{t, "null"}
		return p
	}
	return obj{"anyOf": []any{p, obj{"type": "null"}}}
}

// operation builds the operation object of a route; the error answers it
// refers to are added to responses.
func (g *gen) operation(rt apispec.Route, responses obj, errSchema any) (obj, error) {
	op := rt.Op
	o := obj{"operationId": op.ID, "summary": op.Summary, "tags": []string{op.Tag}}
	if op.Doc != "" {
		o["description"] = op.Doc
	}
	if op.Open {
		o["security"] = []any{}
	} else {
		o["security"] = []any{obj{}, obj{"controlToken": []any{}}}
	}
	var params []any
	_, names := Path(rt.Path)
	for _, n := range names {
		i := slices.IndexFunc(op.Path, func(p apispec.Param) bool { return p.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("path parameter %s is not documented", n)
		}
		p := op.Path[i]
		p.Required = true
		params = append(params, param("path", p))
	}
	for _, p := range op.Query {
		params = append(params, param("query", p))
	}
	if params != nil {
		o["parameters"] = params
	}
	if op.Body != nil {
		s, err := g.schemaOf(op.Body, true)
		if err != nil {
			return nil, err
		}
		content := obj{"application/json": obj{"schema": s}}
		for _, mt := range op.BodyTypes {
			content[mt] = obj{"schema": obj{"type": "string"}}
		}
		o["requestBody"] = obj{"required": !op.BodyOptional, "content": content}
	} else if len(op.BodyTypes) > 0 {
		content := obj{}
		for _, mt := range op.BodyTypes {
			content[mt] = obj{} // text of any of the types (no schema: JSON is YAML too)
		}
		o["requestBody"] = obj{"required": !op.BodyOptional, "content": content}
	}
	out := obj{}
	byStatus := map[int][]apispec.Response{}
	for _, r := range op.Responses {
		byStatus[r.Status] = append(byStatus[r.Status], r)
	}
	for status, rs := range byStatus {
		r, err := g.response(status, rs)
		if err != nil {
			return nil, err
		}
		out[strconv.Itoa(status)] = r
	}
	for _, status := range errorStatuses(rt) {
		if _, ok := out[strconv.Itoa(status)]; ok {
			continue // documented with a body of its own
		}
		name := "Error" + strconv.Itoa(status)
		out[strconv.Itoa(status)] = obj{"$ref": "#/components/responses/" + name}
		responses[name] = obj{"description": errorDoc(status), "content": obj{"application/json": obj{"schema": errSchema}}}
	}
	o["responses"] = out
	return o, nil
}

// errorStatuses are the error statuses of a route: its own, and the
// guard's (docs/security.md): 401 without the control token, 403 for a
// foreign Host or Origin, 415 for a POST of another Content-Type; 400 and
// 413 for a body; 500 for a failure of the mock itself.
func errorStatuses(rt apispec.Route) []int {
	list := slices.Clone(rt.Op.Errors)
	if !rt.Op.Open {
		list = append(list, http.StatusUnauthorized, http.StatusForbidden, http.StatusInternalServerError)
	}
	if rt.Method == http.MethodPost {
		list = append(list, http.StatusUnsupportedMediaType)
	}
	if rt.Op.Body != nil || len(rt.Op.BodyTypes) > 0 {
		list = append(list, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	}
	slices.Sort(list)
	return slices.Compact(list)
}

func errorDoc(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "The control token is missing or wrong (mockd --control-token)."
	case http.StatusForbidden:
		return "Refused: a Host that is not loopback nor allowed, or a cross-site Origin (docs/security.md)."
	case http.StatusUnsupportedMediaType:
		return "The Content-Type is not one the operation takes (docs/security.md)."
	}
	return http.StatusText(status) + "."
}

// response is the response object of one status.
func (g *gen) response(status int, rs []apispec.Response) (obj, error) {
	o := obj{"description": http.StatusText(status) + "."}
	if rs[0].Doc != "" {
		o["description"] = rs[0].Doc
	}
	content := obj{}
	for _, r := range rs {
		if r.Body == nil {
			continue
		}
		s, err := g.schemaOf(r.Body, false)
		if err != nil {
			return nil, err
		}
		mt := r.Type
		if mt == "" {
			mt = "application/json"
		}
		if prev, ok := content[mt].(obj); ok {
			alts, _ := prev["schema"].(obj)["oneOf"].([]any)
			if alts == nil {
				alts = []any{prev["schema"]}
			}
			content[mt] = obj{"schema": obj{"oneOf": append(alts, s)}}
			continue
		}
		content[mt] = obj{"schema": s}
	}
	if len(content) > 0 {
		o["content"] = content
	}
	return o, nil
}

func param(in string, p apispec.Param) obj {
	s := obj{"type": "string"}
	if p.Type != "" {
		s["type"] = p.Type
	}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.Min != nil {
		s["minimum"] = *p.Min
	}
	o := obj{"name": p.Name, "in": in, "schema": s, "description": p.Doc}
	if p.Required {
		o["required"] = true
	}
	return o
}

func remarshal(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func jsonEqual(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && string(x) == string(y)
}

// sortRequired sorts the required lists (they are collected from maps).
func sortRequired(v any) {
	switch v := v.(type) {
	case obj:
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
