package docgen

// The OpenAPI document of the emulated API (docs/openapi.json): it walks
// the family table's routes, reflects the request and answer Go types of
// each Op into JSON Schema with the library the scenario schema uses, and
// attaches the rules the handlers read (FieldRules, Params) and each
// family's credentials and error shape.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/handlers"

	"github.com/invopop/jsonschema"

	"github.com/agentplatform/mockplatform/internal/schemagen"
	"github.com/agentplatform/mockplatform/scenario"
)

// obj is a JSON object of the document.
type obj = map[string]any

// docGen accumulates the document's component schemas.
type docGen struct {
	resp, req *jsonschema.Reflector
	schemas   obj               // component name -> schema
	responses obj               // shared error responses, by name
	renamed   map[string]string // request types named apart from the answer type of their name
}

func newDocGen() (*docGen, error) {
	namer := func(t reflect.Type) string { return componentName(t) }
	resp, err := schemagen.NewReflector(schemagen.Options{Tag: "json"})
	if err != nil {
		return nil, err
	}
	req, err := schemagen.NewReflector(schemagen.Options{Tag: "json", AllowAdditional: true})
	if err != nil {
		return nil, err
	}
	for _, r := range []*jsonschema.Reflector{resp, req} {
		r.ExpandedStruct = false
		r.Namer = namer
	}
	return &docGen{resp: resp, req: req, schemas: obj{}, responses: obj{}, renamed: map[string]string{}}, nil
}

// componentName is a type's schema name: its Go name in UpperCamel case.
func componentName(t reflect.Type) string {
	n := t.Name()
	if n == "" {
		return ""
	}
	r := []rune(n)
	r[0] = unicode.ToUpper(r[0])
	return strings.ReplaceAll(string(r), "Quries", "Queries")
}

// schemaOf reflects the type of v (a request body when input) and returns
// the schema that refers to it; its definitions become components (a
// request type that differs from the answer type of the same name gets
// the suffix Input).
func (g *docGen) schemaOf(v any, input bool) any {
	t := reflect.TypeOf(v)
	r, suffix := g.resp, ""
	if input {
		r, suffix = g.req, "Input"
	}
	s := r.ReflectFromType(t)
	var root obj
	mustRemarshal(s, &root)
	defs, _ := root["$defs"].(map[string]any)
	delete(root, "$defs")
	delete(root, "$schema")
	delete(root, "$id")
	// Rules and nullability, from the Go types.
	g.applyTypes(t, defs, input, map[reflect.Type]bool{})
	toComponents := func(x any) any {
		b, _ := json.Marshal(x)
		var y any
		mustUnmarshal([]byte(strings.ReplaceAll(string(b), `"#/$defs/`, `"#/components/schemas/`)), &y)
		return y
	}
	rename := g.renamed // input types renamed so far
	if !input {
		rename = nil
	}
	fix := func(x any) any {
		b, _ := json.Marshal(toComponents(x))
		out := string(b)
		for from, to := range rename {
			out = strings.ReplaceAll(out, `"#/components/schemas/`+from+`"`, `"#/components/schemas/`+to+`"`)
		}
		var y any
		mustUnmarshal([]byte(out), &y)
		return y
	}
	for changed := true; changed; {
		changed = false
		for name, d := range defs {
			if _, done := rename[name]; done {
				continue
			}
			if prev, ok := g.schemas[name]; ok && !jsonEqual(prev, fix(d)) {
				if !input {
					a, _ := json.Marshal(prev)
					b, _ := json.Marshal(fix(d))
					panic(fmt.Sprintf("openapi: two answer schemas named %s:\n%s\n%s", name, a, b))
				}
				rename[name], changed = name+suffix, true
			}
		}
	}
	for name, d := range defs {
		if to, ok := rename[name]; ok {
			name = to
		}
		g.schemas[name] = fix(d)
	}
	return fix(root)
}

// applyTypes walks the struct types reachable from t and applies their
// rules (FieldRules) and nullability to their definitions.
func (g *docGen) applyTypes(t reflect.Type, defs obj, input bool, done map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || done[t] || t.PkgPath() == "time" {
		return
	}
	done[t] = true
	def, _ := defs[componentName(t)].(obj)
	var rules map[string]engine.FieldRule
	if rb, ok := reflect.New(t).Elem().Interface().(handlers.RuledBody); ok {
		rules = rb.FieldRules()
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
		g.applyTypes(f.Type, defs, input, done)
		if def == nil {
			continue
		}
		props, _ := def["properties"].(obj)
		p, ok := props[name].(obj)
		if !ok {
			continue
		}
		r := rules[name]
		applyRule(p, r)
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		// An answer always has the fields it does not omit.
		if r.Required || (!input && !omit) {
			req, _ := def["required"].([]any)
			def["required"] = append(req, name)
		}
		// A pointer the mock omits never is null when nil; a request's
		// pointers and maps may be null (read as absent).
		k := f.Type.Kind()
		if r.Nullable || (k == reflect.Pointer && !omit) || (input && (k == reflect.Pointer || k == reflect.Map)) {
			props[name] = nullable(p)
		}
	}
	if rules != nil && def != nil {
		for name := range rules {
			if props, _ := def["properties"].(obj); props[name] == nil {
				panic(fmt.Sprintf("openapi: %s has a rule for %q, which is not a field", t.Name(), name))
			}
		}
	}
}

// applyRule writes a rule into a property schema (into its items for an
// array's enum and pattern).
func applyRule(p obj, r engine.FieldRule) {
	target := p
	if p["type"] == "array" {
		if items, ok := p["items"].(obj); ok {
			target = items
		}
		if r.MinItems > 0 {
			p["minItems"] = r.MinItems
		}
		if r.MaxItems > 0 {
			p["maxItems"] = r.MaxItems
		}
	}
	if r.Enum != nil {
		target["enum"] = r.Enum
	}
	if r.Pattern != nil {
		target["pattern"] = r.Pattern.String()
	}
	if r.MinLen > 0 {
		p["minLength"] = r.MinLen
	}
	if r.MaxLen > 0 {
		p["maxLength"] = r.MaxLen
	}
	if r.Min != nil {
		p["minimum"] = *r.Min
	}
	if r.Max != nil {
		p["maximum"] = *r.Max
	}
	if r.Doc != "" {
		p["description"] = r.Doc
	}
	if r.Fidelity != nil {
		p["x-mock-fidelity"] = r.Fidelity
	}
}

// nullable lets a property be null too.
func nullable(p obj) obj {
	if t, ok := p["type"].(string); ok {
		p["type"] = []any{t, "null"}
		switch e := p["enum"].(type) {
		case []string:
			p["enum"] = append(toAny(e), nil)
		case []any:
			p["enum"] = append(slices.Clone(e), nil)
		}
		return p
	}
	out := obj{"anyOf": []any{p, obj{"type": "null"}}}
	for _, k := range []string{"description", "x-mock-fidelity"} {
		if v, ok := p[k]; ok {
			out[k] = v
			delete(p, k)
		}
	}
	return out
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func mustRemarshal(in, out any) {
	b, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	mustUnmarshal(b, out)
}

func mustUnmarshal(b []byte, out any) {
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
}

// schemeObject is the OpenAPI object of a security scheme.
func schemeObject(sc handlers.Scheme) obj {
	o := obj{"type": sc.Type, "description": sc.Doc}
	if sc.In != "" {
		o["in"], o["name"] = sc.In, sc.Name
	}
	if sc.Scheme != "" {
		o["scheme"] = sc.Scheme
	}
	if sc.BearerFormat != "" {
		o["bearerFormat"] = sc.BearerFormat
	}
	if sc.Fidelity != nil {
		o["x-mock-fidelity"] = sc.Fidelity
	}
	return o
}

// security is what a route needs: alternatives, each a set of schemes (the
// operation's own, else its family's).
func security(rt handlers.Route) []any {
	alts := rt.Op.Security
	if alts == nil {
		alts = rt.Fam().Security
	}
	if len(alts) == 0 {
		panic("openapi: no credentials for " + rt.Method + " " + rt.Path)
	}
	var out []any
	for _, names := range alts {
		o := obj{}
		for _, n := range names {
			o[n] = []any{}
		}
		out = append(out, o)
	}
	return out
}

// pathParams describe the path parameters by name.
var pathParams = map[string]string{
	"account":      "The account: slug, id, ACCOUNT-<id> or ws-<id>.",
	"project":      "The project: slug, id or PROJECT-<id>.",
	"agent":        "The agent: its id (a scenario project's slug and PROJECT-<id> too).",
	"branch":       "A branch id (BRANCH-...), or main.",
	"item":         "The item's id.",
	"deployment":   "The deployment's id.",
	"connector":    "The connector's id.",
	"voice":        "A voice id (VOICE-...).",
	"entry":        "An audio cache entry's id: an integer (else 400 Invalid ID).",
	"conversation": "The conversation's id.",
	"test_run":     "The test run's id.",
}

// paramSchema is the schema of a parameter.
func paramSchema(p handlers.Param) obj {
	s := obj{"type": "string"}
	switch p.Type {
	case "integer", "boolean":
		s["type"] = p.Type
	case "date-time":
		s["format"] = "date-time"
	}
	if p.Enum != nil {
		s["enum"] = p.Enum
	}
	if p.Pattern != nil {
		s["pattern"] = p.Pattern.String()
	}
	if p.Min != nil {
		s["minimum"] = *p.Min
	}
	if p.Max != nil {
		s["maximum"] = *p.Max
	}
	if p.Repeated {
		return obj{"type": "array", "items": s}
	}
	return s
}

func param(in string, p handlers.Param) obj {
	o := obj{"name": p.Name, "in": in, "schema": paramSchema(p)}
	if p.Required || in == "path" {
		o["required"] = true
	}
	if p.Doc != "" {
		o["description"] = p.Doc
	}
	if p.Fidelity != nil {
		o["x-mock-fidelity"] = p.Fidelity
	}
	return o
}

// openAPIPath turns gin's template into OpenAPI's and lists its
// parameters.
func openAPIPath(p string) (string, []string) {
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

// errorSchema is the component of a family's error body (one of its
// bodies, when a fidelity switch selects another).
func (g *docGen) errorSchema(f *handlers.Family) any {
	bodies := f.ErrorBodies()
	if len(bodies) == 1 {
		return g.schemaOf(bodies[0].Body, false)
	}
	var alts []any
	for _, b := range bodies {
		s := g.schemaOf(b.Body, false)
		if b.Fidelity != nil {
			s.(obj)["x-mock-fidelity"] = b.Fidelity
		}
		alts = append(alts, s)
	}
	return obj{"oneOf": alts}
}

// operation builds the operation object of a route.
func (g *docGen) operation(rt handlers.Route) obj {
	op := rt.Op
	_, names := openAPIPath(rt.Path)
	o := obj{"operationId": op.ID, "summary": op.Summary, "tags": []string{rt.Family}, "security": security(rt)}
	if op.Doc != "" {
		o["description"] = op.Doc
	}
	if op.Fidelity != nil {
		o["x-mock-fidelity"] = op.Fidelity
	}
	var params []any
	for _, n := range names {
		p := handlers.Param{Name: n, Doc: pathParams[n]}
		switch n {
		case "region":
			p.Doc = "The region."
			if rt.Fam().Base == "builder" {
				p.Enum = scenario.Regions
			} else {
				p.Enum = runtimeRegions()
			}
		case "version":
			p.Enum, p.Doc = []string{"v1"}, "The API version: v1."
		}
		for _, x := range op.Path {
			if x.Name == n {
				p = x
			}
		}
		if p.Doc == "" {
			panic("openapi: undocumented path parameter " + n + " of " + rt.Path)
		}
		params = append(params, param("path", p))
	}
	for _, p := range op.Query {
		params = append(params, param("query", p))
	}
	for _, p := range op.Headers {
		params = append(params, param("header", p))
	}
	params = append(params, obj{"$ref": "#/components/parameters/CorrelationId"})
	o["parameters"] = params

	if m, ok := op.Body.(handlers.Media); ok {
		o["requestBody"] = obj{"required": true, "content": obj{m.Type: obj{"schema": mediaSchema(m)}}}
	} else if op.Body != nil {
		schema := g.schemaOf(op.Body, true)
		if op.BodyPartial {
			schema = g.partial(schema)
		}
		if op.BodyOptional {
			schema = obj{"anyOf": []any{schema, obj{"type": "null"}}, "description": "The body is optional; null is no body."}
		}
		content := obj{"application/json": obj{"schema": schema}}
		for _, mt := range op.BodyTypes {
			s := obj{"type": "string"}
			if mt == "application/x-www-form-urlencoded" {
				s = obj{"type": "object", "additionalProperties": obj{"type": "string"}}
			}
			content[mt] = obj{"schema": s}
		}
		o["requestBody"] = obj{"required": !op.BodyOptional, "content": content}
	}

	responses := obj{}
	byStatus := map[int][]handlers.Response{}
	for _, r := range op.Responses {
		byStatus[r.Status] = append(byStatus[r.Status], r)
	}
	for status, rs := range byStatus {
		responses[strconv.Itoa(status)] = g.success(status, rs)
	}
	f := rt.Fam()
	for _, status := range rt.ErrorStatuses() {
		responses[strconv.Itoa(status)] = obj{"$ref": "#/components/responses/" + errorResponseName(f, status)}
		g.errorResponse(f, status)
	}
	responses["default"] = obj{"$ref": "#/components/responses/" + errorResponseName(f, 0)}
	g.errorResponse(f, 0)
	o["responses"] = responses
	return o
}

// success is the response object of a success status.
func (g *docGen) success(status int, rs []handlers.Response) obj {
	o := obj{"description": http.StatusText(status)}
	if rs[0].Doc != "" {
		o["description"] = rs[0].Doc
	}
	if status != http.StatusSwitchingProtocols {
		o["headers"] = obj{"X-PolyAI-Correlation-Id": obj{"$ref": "#/components/headers/CorrelationId"}}
	}
	if m, ok := rs[0].Body.(handlers.Media); ok {
		o["content"] = obj{m.Type: obj{"schema": mediaSchema(m)}}
		return o
	}
	var alts []any
	for _, r := range rs {
		if r.Media != "" {
			o["content"] = obj{r.Media: obj{"schema": obj{"type": "string", "format": "binary"}}}
		}
		if r.Body == nil {
			continue
		}
		s := g.schemaOf(r.Body, false)
		if r.Fidelity != nil {
			s = obj{"allOf": []any{s}, "x-mock-fidelity": r.Fidelity, "description": r.Doc}
		}
		alts = append(alts, s)
	}
	switch len(alts) {
	case 0:
		return o
	case 1:
		o["content"] = obj{"application/json": obj{"schema": alts[0]}}
	default:
		o["content"] = obj{"application/json": obj{"schema": obj{"oneOf": alts}}}
	}
	return o
}

// mediaSchema is the schema of a body that is not JSON: bytes, or a form
// of parts, all required (others are ignored).
func mediaSchema(m handlers.Media) obj {
	if len(m.Parts) == 0 {
		return obj{"type": "string", "format": "binary"}
	}
	props, req := obj{}, []any{}
	for _, p := range m.Parts {
		s := obj{"type": "string", "description": p.Doc}
		if p.Binary {
			s["format"] = "binary"
		}
		props[p.Name], req = s, append(req, p.Name)
	}
	return obj{"type": "object", "properties": props, "required": req, "additionalProperties": true}
}

// partial is a body schema without its required fields (an update).
func (g *docGen) partial(schema any) any {
	ref, _ := schema.(obj)["$ref"].(string)
	name := strings.TrimPrefix(ref, "#/components/schemas/")
	def, ok := g.schemas[name].(obj)
	if !ok {
		return schema
	}
	cp := maps.Clone(def)
	delete(cp, "required")
	g.schemas[name+"Patch"] = cp
	return obj{"$ref": "#/components/schemas/" + name + "Patch"}
}

// errorResponseName names a family shape's error response of a status (0:
// the default).
func errorResponseName(f *handlers.Family, status int) string {
	s := "Default"
	if status != 0 {
		s = strconv.Itoa(status)
	}
	return f.ErrorBodies()[0].Name + "Error" + s
}

// errorResponses are the shared error responses, by name.
func (g *docGen) errorResponse(f *handlers.Family, status int) {
	name := errorResponseName(f, status)
	if _, ok := g.responses[name]; ok {
		return
	}
	desc := http.StatusText(status)
	if status == 0 {
		desc = "Any other status a fault rule answers, in the family's error body (docs/api.md#control-faults)."
	} else if status == http.StatusNotFound && f.Base != "messaging" {
		desc += "; also an address without a valid region (REGION_REQUIRED)."
	}
	g.responses[name] = obj{
		"description": desc,
		"headers":     obj{"X-PolyAI-Correlation-Id": obj{"$ref": "#/components/headers/CorrelationId"}},
		"content":     obj{"application/json": obj{"schema": g.errorSchema(f)}},
	}
}

func runtimeRegions() []string {
	var out []string
	for _, pair := range scenario.Regions {
		for _, r := range []string{"us-1", "uk-1", "euw-1"} {
			if p, ok := scenario.RuntimeRegion(r); ok && p == pair {
				out = append(out, r)
			}
		}
	}
	return out
}

// OpenAPI is the OpenAPI document of the families' routes
// (docs/openapi.json).
func OpenAPI(fams []*handlers.Family) ([]byte, error) {
	var routes []handlers.Route
	schemes := obj{}
	var tags []any
	for _, f := range fams {
		routes = append(routes, handlers.FamilyRoutes(f)...)
		for name, sc := range f.Schemes {
			o := schemeObject(sc)
			if prev, dup := schemes[name]; dup && !jsonEqual(prev, o) {
				return nil, fmt.Errorf("security scheme %s declared twice, differently", name)
			}
			schemes[name] = o
		}
		if f.Doc != "" {
			tags = append(tags, obj{"name": f.Name, "description": f.Doc})
		}
	}
	g, err := newDocGen()
	if err != nil {
		return nil, err
	}
	paths := obj{}
	ids := map[string]string{}
	for _, rt := range routes {
		path, _ := openAPIPath(rt.Path)
		if prev, dup := ids[rt.Op.ID]; dup {
			return nil, fmt.Errorf("operationId %s of %s %s is also %s's", rt.Op.ID, rt.Method, rt.Path, prev)
		}
		ids[rt.Op.ID] = rt.Method + " " + rt.Path
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(rt.Method)] = g.operation(rt)
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "Agent platform API, as mockplatform emulates it",
			"version": "mock",
			"description": "Every route the mock serves, generated from its route table and the rules its validators read " +
				"(docs/openapi.md). Paths carry their base address (/runtime/{region}, /builder/{region}, /messaging). " +
				"`x-mock-fidelity` marks what exists or is shaped by a choice of the mock: an entry of docs/fidelity.md " +
				"and the fidelity switch that selects it.",
		},
		"tags":  tags,
		"paths": paths,
		"components": obj{
			"schemas":         g.schemas,
			"responses":       g.responses,
			"securitySchemes": schemes,
			"parameters": obj{"CorrelationId": obj{"name": "X-PolyAI-Correlation-Id", "in": "header",
				"description": "Echoed on the answer when at most 200 characters; a fresh UUID otherwise.",
				"schema":      obj{"type": "string"}}},
			"headers": obj{"CorrelationId": obj{"required": true, "description": "The request's correlation id (the envelope's error_id).",
				"schema": obj{"type": "string"}}},
		},
	}
	sortLists(doc)
	return schemagen.Marshal(doc)
}

// sortLists sorts the required lists (they are collected from maps).
func sortLists(v any) {
	switch v := v.(type) {
	case obj:
		for k, x := range v {
			if k == "required" {
				if list, ok := x.([]any); ok {
					sort.Slice(list, func(i, j int) bool { return fmt.Sprint(list[i]) < fmt.Sprint(list[j]) })
				}
			}
			sortLists(x)
		}
	case []any:
		for _, x := range v {
			sortLists(x)
		}
	}
}
