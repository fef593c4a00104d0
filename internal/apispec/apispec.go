// Package apispec describes operations for internal/openapigen as Go
// values. It imports nothing, so route tables compiled into mockd carry
// their documentation without the generator's libraries.
package apispec

// Route is one route of a table; Path is in gin's form ("/_mock/faults/:id").
type Route struct {
	Method, Path string
	Op           Op
}

// Op documents one operation.
type Op struct {
	ID, Tag, Summary, Doc string
	Path, Query           []Param
	// Body is a value of the JSON body's type (nil: no body). BodyTypes
	// are other media types it may have, read as text; without Body they
	// are its only types.
	Body         any
	BodyOptional bool
	BodyTypes    []string
	// Errors are error statuses beyond those every operation of the
	// table may answer.
	Responses []Response
	Errors    []int
	// Open marks an operation that needs no credentials.
	Open bool
}

// Param is a path or query parameter.
type Param struct {
	Name, Doc string
	Type      string // "string" (default), "integer" or "boolean"
	Enum      []string
	Min       *int
	Required  bool
}

// Response is one documented answer; several of one status are
// alternatives.
type Response struct {
	Status int
	Doc    string
	Body   any    // a value of the JSON answer's type, or a Schema; nil: none
	Type   string // media type (default application/json)
}

// Schema is a literal JSON Schema, for a body no Go type describes.
type Schema map[string]any

// Int returns a pointer to n (Param.Min).
func Int(n int) *int { return &n }
