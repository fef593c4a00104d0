// Package realapi holds what the repository keeps of the real service's
// public API: its operations, their declared statuses and the schemas an
// exchange is checked against (facts.json, generated from the real
// OpenAPI documents by ./gen, descriptions and examples left out), the
// official agent development kit's calls that no document lists (kit.go),
// and what the root package's test suite did with them (coverage.json,
// written by its TestMain). From these it matches each real operation to
// the mock's route that serves it (match.go) and builds, per real
// document, an OpenAPI document of the mock's paths carrying the real
// schemas (checkdoc.go), which internal/oapicheck checks exchanges of the
// real profile against. docs/parity.md is generated from it
// (internal/docgen).
//
// Only tests and the document generator import it.
package realapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// FactsFile and CoverageFile are the committed files, relative to this
// package's directory.
const (
	FactsFile    = "facts.json"
	CoverageFile = "coverage.json"
)

// DocsEnv names the environment variable that gives the directory of the
// real OpenAPI documents, for ./gen and for the test that compares the
// facts with them (skipped without it).
const DocsEnv = "REAL_OPENAPI_DIR"

//go:embed facts.json
var factsJSON []byte

// Facts are the facts kept of the real documents.
type Facts struct {
	// Source names where the facts come from.
	Source    string      `json:"source"`
	Documents []*Document `json:"documents"`
}

// Document is what is kept of one real OpenAPI document.
type Document struct {
	// Name is the document's file name without ".json" ("agents").
	Name    string `json:"name"`
	Title   string `json:"title"`
	Version string `json:"version"`
	// OpenAPI is the document's OpenAPI version; JSONSchemaDialect its
	// jsonSchemaDialect, if any.
	OpenAPI           string `json:"openapi"`
	JSONSchemaDialect string `json:"jsonSchemaDialect,omitempty"`
	// Security is the document's default security requirement;
	// SecuritySchemes its schemes (type, in, name).
	Security        json.RawMessage `json:"security,omitempty"`
	SecuritySchemes json.RawMessage `json:"securitySchemes,omitempty"`
	Operations      []*Operation    `json:"operations,omitempty"`
	// Schemas are the component schemas the operations refer to.
	Schemas map[string]json.RawMessage `json:"schemas,omitempty"`
}

// Operation is one real operation: where it is served, what it takes and
// what it answers. Parameter and response references are resolved in
// place; schema references point at the document's Schemas.
type Operation struct {
	Method string `json:"method"`
	// Path is the document's path template ("/v1/agents/{agentId}").
	Path string `json:"path"`
	// Host is the mock's base that stands for the operation's host:
	// "builder" (api.{region}.poly.ai) or "runtime"
	// (api.{region}-1.platform.polyai.app).
	Host        string          `json:"host"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	RequestBody json.RawMessage `json:"requestBody,omitempty"`
	// Responses are the declared answers by status.
	Responses map[string]json.RawMessage `json:"responses"`
	// Security overrides the document's when set.
	Security json.RawMessage `json:"security,omitempty"`
}

// Key is the operation's name in tables and maps: "GET /v1/agents/{agentId}".
func (o *Operation) Key() string { return o.Method + " " + o.Path }

// Statuses are the declared statuses, in order.
func (o *Operation) Statuses() []string {
	out := make([]string, 0, len(o.Responses))
	for s := range o.Responses {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Load returns the committed facts.
func Load() (*Facts, error) { return ParseFacts(factsJSON) }

// ParseFacts decodes facts.
func ParseFacts(data []byte) (*Facts, error) {
	var f Facts
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("realapi: facts: %w", err)
	}
	return &f, nil
}

// Marshal encodes facts the way they are committed: one line per
// operation and per schema, so that a change of the real documents shows
// as a change of the lines it touches.
func (f *Facts) Marshal() ([]byte, error) {
	var b bytes.Buffer
	line := func(indent, prefix string, v any, last bool) error {
		data, err := compact(v)
		if err != nil {
			return err
		}
		b.WriteString(indent + prefix)
		b.Write(data)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	b.WriteString("{\n")
	if err := line("  ", `"source": `, f.Source, false); err != nil {
		return nil, err
	}
	b.WriteString("  \"documents\": [\n")
	for i, d := range f.Documents {
		head := *d
		head.Operations, head.Schemas = nil, nil
		data, err := compact(head)
		if err != nil {
			return nil, err
		}
		// The document's own fields, then its operations and schemas.
		b.WriteString("    ")
		b.Write(data[:len(data)-1])
		b.WriteString(",\n      \"operations\": [\n")
		for j, o := range d.Operations {
			if err := line("        ", "", o, j == len(d.Operations)-1); err != nil {
				return nil, err
			}
		}
		b.WriteString("      ],\n      \"schemas\": {\n")
		names := slices.Sorted(maps.Keys(d.Schemas))
		for j, n := range names {
			key, err := compact(n)
			if err != nil {
				return nil, err
			}
			if err := line("        ", string(key)+": ", d.Schemas[n], j == len(names)-1); err != nil {
				return nil, err
			}
		}
		b.WriteString("      }\n    }")
		if i < len(f.Documents)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}

// compact encodes v on one line, without HTML escaping.
func compact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Operations are every operation of every document, in document order.
func (f *Facts) Operations() []DocOperation {
	var out []DocOperation
	for _, d := range f.Documents {
		for _, o := range d.Operations {
			out = append(out, DocOperation{Doc: d, Op: o})
		}
	}
	return out
}

// DocOperation is an operation with its document.
type DocOperation struct {
	Doc *Document
	Op  *Operation
}

// marshal encodes v indented, with a final newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Route is one route of the mock: its method and gin path template with
// its base ("/builder/:region/v1/agents/:agent").
type Route struct {
	Method, Path string
}

// Key is the route's name in coverage.json: "GET /builder/:region/v1/agents".
func (r Route) Key() string { return r.Method + " " + r.Path }

// ParseRouteKey is the inverse of Key.
func ParseRouteKey(k string) (Route, bool) {
	m, p, ok := strings.Cut(k, " ")
	return Route{Method: m, Path: p}, ok && m != "" && strings.HasPrefix(p, "/")
}
