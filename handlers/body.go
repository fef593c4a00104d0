package handlers

// The one reader of JSON request bodies: every family's handlers read
// their body through readJSON (bindJSON and readFields are its two
// shapes), which applies engine.CheckJSON's rules, and the family's body
// limit in bytes (limits.max_body_bytes, 413, checked by the record
// middleware before any handler runs). A refused body is a 400 in the
// family's error shape that says what is wrong and where (the byte
// offset), and changes nothing.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
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
// data after the JSON value (at byte 11)."), with the family's envelope
// code.
func bodyError(code string, err error) *engine.Error {
	var je *engine.JSONError
	if errors.As(err, &je) {
		return engine.Invalid(code, "Request "+je.Error()+".")
	}
	return engine.Invalid(code, MsgBodyInvalid)
}

// readJSON is the one reader of a request's JSON body: the bytes the
// record middleware read (within the family's limit), checked by
// CheckJSON. An absent (empty) body is nil when optional, else a 400; a
// body of white space only is no JSON value, and refused.
// code is the envelope code of the family's validation errors.
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

// readObject reads the body as a JSON object (readJSON's rules): its
// members by name, nil for an absent optional body.
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

// bindJSON reads the body (readJSON's rules) into v, a pointer to a struct
// with json tags. Fields are matched by their exact names, as the real
// service matches them; other fields are accepted (the real service
// ignores them) and recorded as journal warnings. Type errors name the
// field. An absent body leaves v as it is when optional.
func bindJSON(c *gin.Context, v any, optional bool, code string) error {
	known := jsonFields(reflect.TypeOf(v).Elem())
	// The common case: an object whose members all name fields exactly,
	// checked and decoded as it is. Anything else (no body, null, unknown
	// members, a type error) takes the general way below, which finds a
	// type error in key order, so that two bad fields give the same error
	// whatever their order in the body.
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
	var unknown []string
	for k := range raw {
		if !known[k] {
			unknown = append(unknown, k)
			delete(raw, k) // encoding/json would match it case-insensitively
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		addWarning(c, "unknown field %q in request body (ignored, as the real service does)", k)
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

// DecodeJSON is the control plane's reader: data checked by CheckJSON,
// then decoded into v (a pointer to a struct), refusing fields v does not
// have. Its errors read "body has …", `unknown field "x"` or
// `field "x" must be a string`.
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
