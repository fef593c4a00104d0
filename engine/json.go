package engine

// The strict JSON reader's names (internal/jsoncheck) that the edge and
// the engine's readers of JSON bodies use.

import "github.com/agentplatform/mockplatform/internal/jsoncheck"

// JSONError is why CheckJSON refused a body.
type JSONError = jsoncheck.Error

// MaxJSONDepth is the deepest nesting of arrays and objects a JSON body
// may have.
const MaxJSONDepth = jsoncheck.MaxDepth

// CheckJSON reports whether data is exactly one JSON value within the
// rules of every body the mock reads (jsoncheck.Check).
func CheckJSON(data []byte) error { return jsoncheck.Check(data) }

// CheckJSONValue is CheckJSON, calling topKey (when not nil) with each
// key of a top-level object, unescaped, in order.
func CheckJSONValue(data []byte, topKey func(key []byte)) error {
	return jsoncheck.CheckValue(data, topKey)
}
