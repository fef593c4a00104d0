package docgen

// The OpenAPI document of the emulated API (docs/openapi.json), from the
// family table's routes via openapigen, with the rules the handlers read
// and each family's credentials and error shape.

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/internal/openapigen"
	"github.com/agentplatform/mockplatform/scenario"
)

// obj is a JSON object of the document.
type obj = openapigen.Obj

// docGen generates the document: the shared core, and what the family
// table adds.
type docGen struct{ *openapigen.Doc }

// fieldRules are the handlers' rules of a body type's fields
// (FieldRules), for openapigen's Options.Rules.
func fieldRules(t reflect.Type, def obj) func(string, obj) (bool, bool) {
	rb, ok := reflect.New(t).Elem().Interface().(handlers.RuledBody)
	if !ok {
		return nil
	}
	rules := rb.FieldRules()
	for name := range rules {
		if props, _ := def["properties"].(obj); def != nil && props[name] == nil {
			panic(fmt.Sprintf("openapi: %s has a rule for %q, which is not a field", t.Name(), name))
		}
	}
	return func(name string, p obj) (bool, bool) {
		r := rules[name]
		applyRule(p, r)
		return r.Required, r.Nullable
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

// errorSchema is the component of a family's error body (one of its
// bodies, when a fidelity switch selects another).
func (g *docGen) errorSchema(f *handlers.Family) any {
	bodies := f.ErrorBodies()
	if len(bodies) == 1 {
		return g.Schema(bodies[0].Body, false)
	}
	var alts []any
	for _, b := range bodies {
		s := g.Schema(b.Body, false)
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
	_, names := openapigen.Path(rt.Path)
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
		schema := g.Schema(op.Body, true)
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
	for status, rs := range openapigen.ByStatus(op.Responses, func(r handlers.Response) int { return r.Status }) {
		responses[strconv.Itoa(status)] = g.success(status, rs)
	}
	f := rt.Fam()
	for _, status := range rt.ErrorStatuses() {
		responses[strconv.Itoa(status)] = g.errorResponse(f, status)
	}
	responses["default"] = g.errorResponse(f, 0)
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
		s := g.Schema(r.Body, false)
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
	def, ok := g.Schemas[name].(obj)
	if !ok {
		return schema
	}
	cp := maps.Clone(def)
	delete(cp, "required")
	g.Schemas[name+"Patch"] = cp
	return obj{"$ref": "#/components/schemas/" + name + "Patch"}
}

// errorResponse refers to a family shape's shared error response of a
// status (0: the default).
func (g *docGen) errorResponse(f *handlers.Family, status int) obj {
	desc, name := http.StatusText(status), strconv.Itoa(status)
	switch {
	case status == 0:
		desc, name = "Any other status a fault rule answers, in the family's error body (docs/api.md#control-faults).", "Default"
	case status == http.StatusNotFound && f.Base != "messaging":
		desc += "; also an address without a valid region (REGION_REQUIRED)."
	}
	return g.Response(f.ErrorBodies()[0].Name+"Error"+name, func() obj {
		return obj{
			"description": desc,
			"headers":     obj{"X-PolyAI-Correlation-Id": obj{"$ref": "#/components/headers/CorrelationId"}},
			"content":     obj{"application/json": obj{"schema": g.errorSchema(f)}},
		}
	})
}

func runtimeRegions() []string {
	var out []string
	for _, pair := range scenario.Regions {
		out = append(out, scenario.RuntimeName(pair))
	}
	return out
}

// OpenAPI is the OpenAPI document of the families' routes
// (docs/openapi.json).
func OpenAPI(fams []*handlers.Family) ([]byte, error) {
	d, err := openapigen.New(openapigen.Options{LaxInputs: true, Rules: fieldRules})
	if err != nil {
		return nil, err
	}
	g := docGen{d}
	schemes := obj{}
	var tags []openapigen.Tag
	for _, f := range fams {
		for _, rt := range handlers.FamilyRoutes(f) {
			g.Add(rt.Method, rt.Path, g.operation(rt))
		}
		for name, sc := range f.Schemes {
			o := schemeObject(sc)
			if prev, dup := schemes[name]; dup && !reflect.DeepEqual(prev, o) {
				return nil, fmt.Errorf("security scheme %s declared twice, differently", name)
			}
			schemes[name] = o
		}
		if f.Doc != "" {
			tags = append(tags, openapigen.Tag{Name: f.Name, Doc: f.Doc})
		}
	}
	return g.Bytes("Agent platform API, as mockplatform emulates it",
		"Every route the mock serves, generated from its route table and the rules its validators read "+
			"(docs/openapi.md). Paths carry their base address (/runtime/{region}, /builder/{region}, /messaging). "+
			"`x-mock-fidelity` marks what exists or is shaped by a choice of the mock: an entry of docs/fidelity.md "+
			"and the fidelity switch that selects it.",
		tags, obj{
			"securitySchemes": schemes,
			"parameters": obj{"CorrelationId": obj{"name": "X-PolyAI-Correlation-Id", "in": "header",
				"description": "Echoed on the answer when at most 200 characters; a fresh UUID otherwise.",
				"schema":      obj{"type": "string"}}},
			"headers": obj{"CorrelationId": obj{"required": true, "description": "The request's correlation id (the envelope's error_id).",
				"schema": obj{"type": "string"}}},
		})
}
