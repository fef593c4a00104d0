package realapi

// Check documents: per real document, an OpenAPI 3.1 document of the real
// rules on the mock's paths, for internal/oapicheck.

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentplatform/mockplatform/internal/openapigen"
)

// CheckDocument is one real document on the mock's paths.
type CheckDocument struct {
	Name   string // the real document's
	JSON   []byte
	Routes []Route
}

// CheckDocuments builds the check documents of the facts' documents that
// routes serve.
func CheckDocuments(f *Facts, routes []Route) ([]CheckDocument, error) {
	var out []CheckDocument
	matches := MatchAll(f.Documents, routes)
	for _, d := range f.Documents {
		cd, err := checkDocument(d, matches)
		if err != nil {
			return nil, fmt.Errorf("realapi: check document %s: %w", d.Name, err)
		}
		if cd != nil {
			out = append(out, *cd)
		}
	}
	return out, nil
}

func checkDocument(d *Document, matches []Match) (*CheckDocument, error) {
	paths := obj{}
	cd := &CheckDocument{Name: d.Name}
	for _, m := range matches {
		if m.Doc != d || !m.Served() || len(m.Op.Responses) == 0 {
			continue
		}
		op, err := checkOperation(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Op.Key(), err)
		}
		p, _ := openapigen.Path(m.Route.Path)
		item, _ := paths[p].(obj)
		if item == nil {
			item = obj{}
			paths[p] = item
		}
		item[strings.ToLower(m.Op.Method)] = op
		cd.Routes = append(cd.Routes, m.Route)
	}
	if len(cd.Routes) == 0 {
		return nil, nil
	}
	schemas := obj{}
	for n, s := range d.Schemas {
		v, err := decode(s)
		if err != nil {
			return nil, err
		}
		schemas[n] = to31(v)
	}
	comps := obj{"schemas": schemas}
	doc := obj{
		"openapi": "3.1.0",
		"info":    obj{"title": d.Title + " (the real document on the mock's paths)", "version": d.Version},
		"paths":   paths,
	}
	if len(d.SecuritySchemes) > 0 {
		v, err := decode(d.SecuritySchemes)
		if err != nil {
			return nil, err
		}
		comps["securitySchemes"] = v
	}
	doc["components"] = comps
	if len(d.Security) > 0 {
		v, err := decode(d.Security)
		if err != nil {
			return nil, err
		}
		doc["security"] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	cd.JSON = b
	return cd, nil
}

// checkOperation is the real operation on the route's path, with its
// parameters renamed and the route's {region} (and {version}) added.
func checkOperation(m Match) (obj, error) {
	op := obj{}
	var params []any
	if len(m.Op.Parameters) > 0 {
		v, err := decode(m.Op.Parameters)
		if err != nil {
			return nil, err
		}
		params, _ = v.([]any)
	}
	for _, p := range params {
		pm, ok := p.(obj)
		if !ok {
			continue
		}
		if pm["in"] == "path" {
			name, _ := pm["name"].(string)
			mock, ok := m.Names[name]
			if !ok {
				return nil, fmt.Errorf("path parameter %s is not in the route %s", name, m.Route.Path)
			}
			pm["name"] = mock
		}
		pm["schema"] = to31(pm["schema"])
	}
	params = append(params, obj{"in": "path", "name": "region", "required": true, "schema": obj{"type": "string"}})
	if strings.Contains(m.Route.Path, "/:version/") && !mapsValue(m.Names, "version") {
		params = append(params, obj{"in": "path", "name": "version", "required": true, "schema": obj{"type": "string", "enum": []any{"v1"}}})
	}
	op["parameters"] = params
	if len(m.Op.RequestBody) > 0 {
		v, err := decode(m.Op.RequestBody)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = to31(v)
	}
	responses := obj{}
	for status, r := range m.Op.Responses {
		v, err := decode(r)
		if err != nil {
			return nil, err
		}
		rm, _ := v.(obj)
		if _, ok := rm["description"]; !ok {
			rm["description"] = "(declared)" // required by OpenAPI; the facts keep no descriptions
		}
		responses[status] = to31(rm)
	}
	op["responses"] = responses
	if len(m.Op.Security) > 0 {
		v, err := decode(m.Op.Security)
		if err != nil {
			return nil, err
		}
		op["security"] = v
	}
	return op, nil
}

// to31 turns OpenAPI 3.0 "nullable" under v into OpenAPI 3.1 types.
func to31(v any) any {
	switch v := v.(type) {
	case obj:
		for k, c := range v {
			v[k] = to31(c)
		}
		if n, _ := v["nullable"].(bool); n {
			if t, ok := v["type"].(string); ok {
				v["type"] = []any{t, "null"}
			}
		}
		delete(v, "nullable")
		return v
	case []any:
		for i, c := range v {
			v[i] = to31(c)
		}
	}
	return v
}

func decode(b json.RawMessage) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

func mapsValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
