package handlers

// The one reader of JSON request bodies, readJSON: engine.CheckJSON's
// rules, and a 400 in the family's shape saying what is wrong and where.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// Messages of a refused body, shared by every family.
const (
	MsgBodyRequired  = "Request body is required."
	MsgBodyNotObject = "Request body must be a JSON object."
	MsgBodyInvalid   = "Request body is not valid JSON."
)

// bodyError is the 400 of a body CheckJSON refused ("Request body has
// data after the JSON value (at byte 11).").
func bodyError(code string, err error) *engine.Error {
	var je *engine.JSONError
	if errors.As(err, &je) {
		return engine.Invalid(code, "Request "+je.Error()+".")
	}
	return engine.Invalid(code, MsgBodyInvalid)
}

// readJSON is the request's JSON body: nil when absent and optional, else
// a 400 with code.
func readJSON(c *gin.Context, optional bool, code string) ([]byte, error) {
	body := stateOf(c).body
	if len(body) == 0 {
		if optional {
			return nil, nil
		}
		return nil, engine.Invalid(code, MsgBodyRequired)
	}
	if err := engine.CheckJSON(body); err != nil {
		return nil, bodyError(code, err)
	}
	return body, nil
}

// readObject reads the body as a JSON object's members.
func readObject(c *gin.Context, optional bool, code string) (map[string]json.RawMessage, error) {
	body, err := readJSON(c, optional, code)
	if body == nil || err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(body, &raw) != nil {
		return nil, engine.Invalid(code, MsgBodyNotObject)
	}
	if raw == nil { // null: what clients send for "no body" (json.Marshal of a nil map)
		if optional {
			return nil, nil
		}
		return nil, engine.Invalid(code, MsgBodyNotObject)
	}
	return raw, nil
}

// bindJSON reads the body into the struct *v; fields match by exact name,
// as the real service's, and others get a journal warning.
func bindJSON(c *gin.Context, v any, optional bool, code string) error {
	known := jsonFields(reflect.TypeOf(v).Elem())
	// Fast path: every member names a field exactly. The general way
	// reports type errors in key order.
	if body := stateOf(c).body; bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		exact := true
		err := engine.CheckJSONValue(body, func(k []byte) { exact = exact && known[string(k)] })
		if err == nil && exact && json.Unmarshal(body, v) == nil {
			return nil
		}
	}
	raw, err := readObject(c, optional, code)
	if raw == nil || err != nil {
		return err
	}
	for _, k := range warnUnknown(c, raw, func(k string) bool { return known[k] }) {
		delete(raw, k) // encoding/json would match it case-insensitively
	}
	body, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return engine.Invalid(code, fmt.Sprintf("Field %q must be %s.", ute.Field, jsonTypeName(ute.Type)),
				engine.FieldError{Field: ute.Field, Message: "must be " + jsonTypeName(ute.Type)})
		}
		return engine.Invalid(code, MsgBodyInvalid)
	}
	return nil
}

// warnUnknown adds and returns a journal warning per unknown field.
func warnUnknown(c *gin.Context, raw map[string]json.RawMessage, known func(string) bool) []string {
	var unknown []string
	for k := range raw {
		if !known(k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		addWarning(c, "unknown field %q in request body (ignored, as the real service does)", k)
	}
	return unknown
}

// DecodeJSON is the control plane's reader: CheckJSON, then a decode into
// v refusing unknown fields.
func DecodeJSON(data []byte, v any) error {
	if err := engine.CheckJSON(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var ute *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ute) && ute.Field != "":
		return fmt.Errorf("field %q must be %s", ute.Field, jsonTypeName(ute.Type))
	case errors.As(err, &ute):
		return fmt.Errorf("body must be %s", jsonTypeName(ute.Type))
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}
