package realapi

// Extracting the facts from the real OpenAPI documents, without their
// documentation.

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Source is what Extract names as the facts' source.
const Source = "The real service's public OpenAPI documents (one entry per file), reduced by internal/realapi/gen " +
	"to their operations, parameters, request bodies, declared answers and the schemas these refer to; " +
	"descriptions, summaries, examples and code samples are left out."

// dropped are the keys left out at every level: documentation, not rules.
var dropped = map[string]bool{
	"description": true, "summary": true, "example": true, "examples": true, "x-codeSamples": true,
	"tags": true, "title": true, "externalDocs": true, "operationId": true, "servers": true,
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Extract reads every *.json OpenAPI document of dir.
func Extract(dir string) (*Facts, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("realapi: no *.json document in %s", dir)
	}
	sort.Strings(files)
	f := &Facts{Source: Source}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		d, err := extractDocument(strings.TrimSuffix(filepath.Base(file), ".json"), data)
		if err != nil {
			return nil, fmt.Errorf("realapi: %s: %w", filepath.Base(file), err)
		}
		f.Documents = append(f.Documents, d)
	}
	return f, nil
}

type obj = map[string]any

func extractDocument(name string, data []byte) (*Document, error) {
	var doc obj
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	info, _ := doc["info"].(obj)
	d := &Document{Name: name, OpenAPI: str(doc["openapi"]), JSONSchemaDialect: str(doc["jsonSchemaDialect"]),
		Title: str(info["title"]), Version: str(info["version"])}
	comps, _ := doc["components"].(obj)
	x := &extractor{comps: comps, schemas: map[string]bool{}}
	var err error
	if d.Security, err = raw(doc["security"]); err != nil {
		return nil, err
	}
	if schemes, ok := comps["securitySchemes"]; ok {
		if d.SecuritySchemes, err = raw(clean(schemes)); err != nil {
			return nil, err
		}
	}
	docHost := hostOf(doc["servers"])
	paths, _ := doc["paths"].(obj)
	for _, p := range sortedKeys(paths) {
		item, _ := paths[p].(obj)
		shared, _ := item["parameters"].([]any)
		for _, m := range methods {
			op, ok := item[m].(obj)
			if !ok {
				continue
			}
			o, err := x.operation(strings.ToUpper(m), p, op, shared)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(m), p, err)
			}
			o.Host = docHost
			if h := hostOf(op["servers"]); h != "" {
				o.Host = h
			}
			if o.Host == "" {
				return nil, fmt.Errorf("%s %s: no server says where it is served", o.Method, p)
			}
			d.Operations = append(d.Operations, o)
		}
	}
	// The schemas referred to, transitively.
	all, _ := comps["schemas"].(obj)
	d.Schemas = map[string]json.RawMessage{}
	for todo := slices.Sorted(maps.Keys(x.schemas)); len(todo) > 0; {
		n := todo[0]
		todo = todo[1:]
		if _, done := d.Schemas[n]; done {
			continue
		}
		s, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("schema %s is referred to but not defined", n)
		}
		before := len(x.schemas)
		x.refs(s)
		if len(x.schemas) > before {
			todo = append(todo, slices.Sorted(maps.Keys(x.schemas))...)
		}
		if d.Schemas[n], err = raw(clean(s)); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// extractor resolves one document's references and collects its schemas.
type extractor struct {
	comps   obj
	schemas map[string]bool
}

func (x *extractor) operation(method, path string, op obj, shared []any) (*Operation, error) {
	o := &Operation{Method: method, Path: path, Responses: map[string]json.RawMessage{}}
	// Path-level parameters, then the operation's, which win.
	var params []any
	seen := map[string]int{}
	for _, list := range [][]any{shared, asList(op["parameters"])} {
		for _, p := range list {
			p, err := x.resolve(p, "parameters")
			if err != nil {
				return nil, err
			}
			pm, _ := p.(obj)
			k := str(pm["in"]) + ":" + str(pm["name"])
			if i, dup := seen[k]; dup {
				params[i] = p
				continue
			}
			seen[k] = len(params)
			params = append(params, p)
		}
	}
	var err error
	if len(params) > 0 {
		x.refs(params)
		if o.Parameters, err = raw(clean(params)); err != nil {
			return nil, err
		}
	}
	if rb, ok := op["requestBody"]; ok {
		x.refs(rb)
		if o.RequestBody, err = raw(clean(rb)); err != nil {
			return nil, err
		}
	}
	responses, _ := op["responses"].(obj)
	for _, status := range sortedKeys(responses) {
		r, err := x.resolve(responses[status], "responses")
		if err != nil {
			return nil, err
		}
		x.refs(r)
		if o.Responses[status], err = raw(clean(r)); err != nil {
			return nil, err
		}
	}
	if sec, ok := op["security"]; ok {
		if o.Security, err = raw(sec); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// resolve replaces a reference to a component of kind ("parameters") by
// the component, ignoring the $ref's siblings as OpenAPI 3.0 says.
func (x *extractor) resolve(v any, kind string) (any, error) {
	m, ok := v.(obj)
	if !ok {
		return v, nil
	}
	ref, ok := m["$ref"].(string)
	if !ok {
		return v, nil
	}
	name, ok := strings.CutPrefix(ref, "#/components/"+kind+"/")
	if !ok {
		return nil, fmt.Errorf("unsupported reference %s", ref)
	}
	all, _ := x.comps[kind].(obj)
	c, ok := all[name]
	if !ok {
		return nil, fmt.Errorf("%s is not defined", ref)
	}
	return x.resolve(c, kind)
}

// refs collects the schema references under v.
func (x *extractor) refs(v any) {
	switch v := v.(type) {
	case obj:
		for k, c := range v {
			if k == "$ref" {
				if s, ok := c.(string); ok {
					if n, ok := strings.CutPrefix(s, "#/components/schemas/"); ok {
						x.schemas[n] = true
					}
				}
				continue
			}
			x.refs(c)
		}
	case []any:
		for _, c := range v {
			x.refs(c)
		}
	}
}

// clean drops the documentation keys at every level but field names.
func clean(v any) any {
	switch v := v.(type) {
	case obj:
		out := obj{}
		for k, c := range v {
			switch {
			case k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions":
				if m, ok := c.(obj); ok {
					props := obj{}
					for name, s := range m {
						props[name] = clean(s)
					}
					out[k] = props
					continue
				}
				out[k] = clean(c)
			case dropped[k]:
			default:
				out[k] = clean(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = clean(c)
		}
		return out
	}
	return v
}

// hostOf is the mock's base for a servers list ("runtime", "builder", "").
func hostOf(v any) string {
	for _, s := range asList(v) {
		u := str(s.(obj)["url"])
		switch {
		case strings.Contains(u, ".platform.polyai.app"):
			return "runtime"
		case strings.Contains(u, "poly.ai"):
			return "builder"
		}
	}
	return ""
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func raw(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	return b, err
}

func sortedKeys(m obj) []string { return slices.Sorted(maps.Keys(m)) }
