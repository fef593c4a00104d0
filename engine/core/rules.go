package core

// Routes and their documentation: each route's Op documents parameters,
// types, errors and fidelity choices, and docs/openapi.json is generated
// from them, with the same values the validators read, so they cannot drift.

import (
	"reflect"
	"regexp"
	"strings"
)

// Fidelity says why a route, answer or header exists: a docs/fidelity.md
// entry and the switch selecting it, if any.
type Fidelity struct {
	// ID is the register's entry ("D6", "M1.2").
	ID string `json:"id"`
	// Switch and Value are the fidelity switch that selects it.
	Switch string `json:"switch,omitempty"`
	Value  string `json:"value,omitempty"`
	// Note says what is chosen.
	Note string `json:"note"`
}

// FieldRule is a rule on one request body field; handlers check it and
// the document publishes it. A body type lists them in fieldRules.
type FieldRule struct {
	Required bool
	Enum     []string
	Pattern  *regexp.Regexp
	// MinLen and MaxLen bound a string's length in characters (0: none).
	MinLen, MaxLen int
	// Min and Max bound a number.
	Min, Max *int64
	// MinItems and MaxItems bound an array (0: none).
	MinItems, MaxItems int
	// Nullable allows null (which clears the field).
	Nullable bool
	Doc      string
	Fidelity *Fidelity
}

// BodyFields lists the json names of a body type's fields, in order.
func BodyFields(body any) []string {
	t := reflect.TypeOf(body)
	out := make([]string, 0, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// I64 is a bound of a FieldRule or Param.
func I64(v int64) *int64 { return &v }

// OneOfWords formats a list as "a, b or c".
func OneOfWords(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}
