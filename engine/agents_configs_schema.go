package engine

// JSON Schema validation of real-time config variables: every failing
// location is reported and nothing is loaded from the network. Schemas use
// absolute mem:// URIs (a bare name resolves against the working directory).

import (
	"bytes"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaURL = "mem:///schemas/real-time-config.json"

// compileSchema compiles a schema (draft 2020-12 unless it names another).
func (a *Engine) compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		msg := err.Error()
		var se *jsonschema.SchemaValidationError
		if errors.As(err, &se) && se.Err != nil {
			msg = se.Err.Error()
		}
		return nil, errors.New(strings.ReplaceAll(msg, "\n", "; "))
	}
	return s, nil
}

// validateVariables returns one field error per failing location; a page
// without a schema accepts any object.
func (a *Engine) validateVariables(schema []byte, vars map[string]any) ([]FieldError, error) {
	if len(bytes.TrimSpace(schema)) == 0 || string(bytes.TrimSpace(schema)) == "null" {
		return nil, nil
	}
	s, err := a.compileSchema(schema)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(jsonOf(vars))))
	if err != nil {
		return nil, err
	}
	err = s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []FieldError
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		out = append(out, FieldError{Field: "variables" + u.InstanceLocation, Message: u.Error.String()})
	}
	if len(out) == 0 {
		out = append(out, FieldError{Field: "variables", Message: ve.Error()})
	}
	return out, nil
}
