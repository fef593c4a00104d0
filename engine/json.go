package engine

// The strict JSON reader's (internal/jsoncheck) names for JSON bodies.

import "github.com/agentplatform/mockplatform/internal/jsoncheck"

// JSONError is why CheckJSON refused a body.
type JSONError = jsoncheck.Error

// MaxJSONDepth is the deepest nesting a JSON body may have.
const MaxJSONDepth = jsoncheck.MaxDepth

// CheckJSON reports whether data is exactly one JSON value within the
// body rules.
func CheckJSON(data []byte) error { return jsoncheck.Check(data) }

// CheckJSONValue is CheckJSON, calling topKey with each top-level key.
func CheckJSONValue(data []byte, topKey func(key []byte)) error {
	return jsoncheck.CheckValue(data, topKey)
}
