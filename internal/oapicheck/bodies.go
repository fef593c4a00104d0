package oapicheck

// JSON bodies are checked here against validators compiled once per
// schema, since kin-openapi compiles one per body checked; it checks the
// rest of an exchange.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL is the document's place in the compiler, for its $refs.
const docURL = "mem://oapicheck/openapi.json"

type bodies struct {
	mu       sync.Mutex // guards c (not safe for concurrent use), cache and n
	c        *jsonschema.Compiler
	cache    map[*openapi3.Schema]*jsonschema.Schema
	n        int // inline schemas added
	compiled int // validators compiled (tests)
}

func newBodies(doc []byte) (*bodies, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // kin-openapi asserts the formats it knows (the document uses date-time)
	if err := c.AddResource(docURL, v); err != nil {
		return nil, err
	}
	return &bodies{c: c, cache: map[*openapi3.Schema]*jsonschema.Schema{}}, nil
}

// validator returns the compiled validator of a schema of the document;
// an inline schema is compiled with its $refs pointed at the document.
func (b *bodies) validator(ref *openapi3.SchemaRef) (*jsonschema.Schema, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.cache[ref.Value]; ok {
		return s, nil
	}
	loc := docURL + ref.Ref
	if !strings.HasPrefix(ref.Ref, "#/") {
		raw, err := json.Marshal(ref.Value)
		if err != nil {
			return nil, err
		}
		raw = bytes.ReplaceAll(raw, []byte(`"$ref":"#/`), []byte(`"$ref":"`+docURL+`#/`))
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		b.n++
		loc = fmt.Sprintf("mem://oapicheck/inline/%d.json", b.n)
		if err := b.c.AddResource(loc, v); err != nil {
			return nil, err
		}
	}
	s, err := b.c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", loc, err)
	}
	b.cache[ref.Value] = s
	b.compiled++
	return s, nil
}

// validate checks a JSON body against a schema.
func (b *bodies) validate(ref *openapi3.SchemaRef, body []byte) error {
	s, err := b.validator(ref)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	return s.Validate(v)
}

// jsonSchema returns content's schema for a JSON Content-Type, or nil.
func jsonSchema(content openapi3.Content, contentType string) *openapi3.SchemaRef {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	m := content.Get(contentType)
	if m == nil || m.Schema == nil || m.Schema.Value == nil {
		return nil
	}
	return m.Schema
}
