package core

// Routes and their documentation. Every family lists its routes (route,
// family.go), one line each, with an Op that documents the route: its
// parameters, its request and response Go types, its error statuses and
// what in it is a fidelity choice. The routes are what the OpenAPI
// document of the API (docs/openapi.json, docs/openapi.md) is generated
// from; the request types and the rules the validators read (enums,
// limits, patterns) are the same values the document publishes, so the
// two cannot drift.

import (
	"reflect"
	"regexp"
	"strings"
)

// Fidelity says why a route, an answer or a header exists in the mock: an
// entry of the fidelity register (docs/fidelity.md) and the switch that
// selects it, if any.
type Fidelity struct {
	// ID is the register's entry ("D6", "M1.2").
	ID string `json:"id"`
	// Switch and Value are the fidelity switch that selects it.
	Switch string `json:"switch,omitempty"`
	Value  string `json:"value,omitempty"`
	// Note says what is chosen.
	Note string `json:"note"`
}

// FieldRule is a rule a handler checks on one field of a request body: the
// handler reads the same values (enum lists, patterns, bounds), and the
// document publishes them. A body type lists its rules in a fieldRules
// method.
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
