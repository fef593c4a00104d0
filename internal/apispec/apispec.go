// Package apispec describes operations for the OpenAPI generator
// (internal/openapigen): what a route reads and what it answers, as Go
// values whose types the generator reflects into JSON Schema. It imports
// nothing, so that route tables compiled into mockd can carry their own
// documentation without the generator's libraries.
package apispec

// Route is one route of a table: a method, a path in gin's form
// ("/_mock/faults/:id") and its operation.
type Route struct {
	Method, Path string
	Op           Op
}

// Op documents one operation.
type Op struct {
	// ID is the operationId; Tag groups operations; Summary is one line,
	// Doc more.
	ID, Tag, Summary, Doc string
	// Path documents the path parameters by name; Query the query
	// parameters.
	Path, Query []Param
	// Body is a value of the JSON request body's type (nil: no body);
	// BodyOptional lets it be absent. BodyTypes are media types besides
	// application/json that the body may have, read as text; without Body
	// they are all the body's types, each read as text (a scenario in
	// YAML, whatever its type says).
	Body         any
	BodyOptional bool
	BodyTypes    []string
	// Responses are the answers the operation documents; Errors the
	// statuses it answers with the error body besides the ones every
	// operation of its table may answer.
	Responses []Response
	Errors    []int
	// Open marks an operation that needs no credentials.
	Open bool
}

// Param is a path or query parameter.
type Param struct {
	Name, Doc string
	// Type is "string" (default), "integer" or "boolean".
	Type     string
	Enum     []string
	Min      *int
	Required bool
}

// Response is one documented answer of a status (several of one status
// are alternatives).
type Response struct {
	Status int
	Doc    string
	// Body is a value of the JSON answer's type, or a Schema; nil: no body.
	Body any
	// Type is the media type (default application/json).
	Type string
}

// Schema is a JSON Schema given as it is, for a body whose Go type does
// not describe it (a document served verbatim).
type Schema map[string]any

// Int returns a pointer to n (Param.Min).
func Int(n int) *int { return &n }
