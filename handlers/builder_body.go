package handlers

// Body helpers of the builder families, whose errors list every bad field
// at once (docs/api.md#agents-errors).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// fieldBody is a decoded JSON object body: field name to raw value.
type fieldBody struct {
	raw  map[string]json.RawMessage
	errs []engine.FieldError
}

// readFields reads the body as a JSON object; fields not in known get a
// journal warning (M6).
func readFields(c *gin.Context, optional bool, known ...string) (*fieldBody, error) {
	raw, err := readObject(c, optional, engine.CodeValidation)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		raw = map[string]json.RawMessage{}
	}
	warnUnknown(c, raw, func(k string) bool { return slices.Contains(known, k) })
	return &fieldBody{raw: raw}, nil
}

func (f *fieldBody) has(name string) bool { _, ok := f.raw[name]; return ok }

func (f *fieldBody) isNull(name string) bool {
	r, ok := f.raw[name]
	return ok && string(bytes.TrimSpace(r)) == "null"
}

func (f *fieldBody) fail(name, format string, args ...any) {
	f.errs = append(f.errs, engine.FieldError{Field: name, Message: fmt.Sprintf(format, args...)})
}

// require reports a missing field; it returns whether the field is there.
func (f *fieldBody) require(name string) bool {
	if !f.has(name) {
		f.fail(name, "is required")
		return false
	}
	return true
}

// decodeField reads a field into a T (ok false when absent or not a T).
func decodeField[T any](f *fieldBody, name, what string) (T, bool) {
	var v, zero T
	r, ok := f.raw[name]
	if !ok {
		return zero, false
	}
	if err := json.Unmarshal(r, &v); err != nil {
		f.fail(name, "must be %s", what)
		return zero, false
	}
	return v, true
}

// str reads a string field.
func (f *fieldBody) str(name string) (string, bool) { return decodeField[string](f, name, "a string") }

// strLen reads a string field of min to max characters (runes).
func (f *fieldBody) strLen(name string, min, max int) (string, bool) {
	s, ok := f.str(name)
	if !ok {
		return "", false
	}
	if n := len([]rune(s)); n < min || n > max {
		f.fail(name, "must be %d to %d characters", min, max)
		return "", false
	}
	return s, true
}

// text reads a string field within r's length bounds (MaxLen 0: none).
func (f *fieldBody) text(name string, r engine.FieldRule) (string, bool) {
	hi := r.MaxLen
	if hi == 0 {
		hi = int(^uint(0) >> 1)
	}
	return f.strLen(name, r.MinLen, hi)
}

// whole reads an integer field by its rule: the bounds of r.
func (f *fieldBody) whole(name string, r engine.FieldRule, msg string) (int64, bool) {
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if r.Min != nil {
		lo = *r.Min
	}
	if r.Max != nil {
		hi = *r.Max
	}
	return f.integer(name, lo, hi, msg)
}

// requireAll reports the missing required fields of a body type.
func (f *fieldBody) requireAll(body RuledBody) {
	for _, name := range requiredFields(body) {
		f.require(name)
	}
}

// enum reads a string field that must be one of values.
func (f *fieldBody) enum(name string, values []string) (string, bool) {
	r, ok := f.raw[name]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(r, &s) != nil || !slices.Contains(values, s) {
		f.fail(name, "must be one of: %s", strings.Join(values, ", "))
		return "", false
	}
	return s, true
}

// boolean reads a boolean field.
func (f *fieldBody) boolean(name string) (bool, bool) { return decodeField[bool](f, name, "a boolean") }

// integer reads an integer field in [min, max].
func (f *fieldBody) integer(name string, min, max int64, msg string) (int64, bool) {
	r, ok := f.raw[name]
	if !ok {
		return 0, false
	}
	if b := bytes.TrimSpace(r); len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		f.fail(name, "%s", msg)
		return 0, false
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(r))
	d.UseNumber()
	if err := d.Decode(&n); err != nil {
		f.fail(name, "%s", msg)
		return 0, false
	}
	v, err := n.Int64()
	if err != nil || v < min || v > max {
		f.fail(name, "%s", msg)
		return 0, false
	}
	return v, true
}

// object reads an object field into v.
func (f *fieldBody) object(name string, v any, msg string) bool {
	r, ok := f.raw[name]
	if !ok {
		return false
	}
	if b := bytes.TrimSpace(r); len(b) == 0 || b[0] != '{' {
		f.fail(name, "%s", msg)
		return false
	}
	if err := json.Unmarshal(r, v); err != nil {
		f.fail(name, "%s", msg)
		return false
	}
	return true
}

// boolQuery reads an optional true|false query parameter; a bad value is
// added to errs.
func boolQuery(c *gin.Context, name string, errs *[]engine.FieldError) *bool {
	v, ok := c.GetQuery(name)
	if !ok {
		return nil
	}
	if v != "true" && v != "false" {
		*errs = append(*errs, engine.FieldError{Field: name, Message: "must be a boolean"})
		return nil
	}
	b := v == "true"
	return &b
}

// enumQuery reads an optional query parameter that must be one of values;
// a bad value is added to errs.
func enumQuery(c *gin.Context, name string, values []string, errs *[]engine.FieldError) (string, bool) {
	v, ok := c.GetQuery(name)
	if ok && !slices.Contains(values, v) {
		*errs = append(*errs, engine.FieldError{Field: name, Message: "must be one of: " + strings.Join(values, ", ")})
	}
	return v, ok
}

// err is the 400 of the collected field errors, nil if none.
func (f *fieldBody) err() error {
	if len(f.errs) == 0 {
		return nil
	}
	return engine.Invalid(engine.CodeValidation, engine.MsgValidationFailed, f.errs...)
}
