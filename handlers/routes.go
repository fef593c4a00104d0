package handlers

// Routes and their documentation, from which docs/openapi.json is
// generated; validators read the same rules, so the two cannot drift.

import (
	"regexp"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
)

// Route is one registered route.
type Route struct {
	Method string
	// Path is gin's path template with its base ("/runtime/:region/v3/…";
	// in a family's declaration, below the base).
	Path   string
	Family string // the name of the family that serves it
	Op     *Op

	h   handlerFunc
	fam *Family // its credentials and error shape
}

// Fam is the family that serves the route.
func (r Route) Fam() *Family { return r.fam }

// Op documents one operation.
type Op struct {
	// ID is the operationId (unique, lowerCamel); Doc is Markdown.
	ID, Summary, Doc string
	// Path refines path parameters; others are described by their name.
	Path    []Param
	Query   []Param
	Headers []Param // read besides the family's credentials
	// Body is a value of the request body's Go type (nil: no body).
	Body         any
	BodyOptional bool // an empty body is allowed
	BodyPartial  bool // every field is optional (an update)
	// BodyTypes are media types besides application/json.
	BodyTypes []string
	MaxBody   int64      // raises the instance's body limit (bytes)
	Responses []Response // the answers other than errors
	// Errors are error statuses besides its family's (Route.ErrorStatuses).
	Errors []int
	// Fidelity marks the mock's choices (x-mock-fidelity).
	Fidelity *engine.Fidelity
	// Security, when set, replaces its family's scheme alternatives.
	Security [][]string
}

// Response is one documented answer.
type Response struct {
	Status int
	Body   any    // a value of the body's Go type (nil: no body)
	Media  string // the media type of a body that is not JSON (Body nil)
	Doc    string // when it is answered
	// Fidelity marks an answer that a fidelity switch selects.
	Fidelity *engine.Fidelity
}

// Param is a query parameter or a header, with the schema its parser checks.
type Param struct {
	Name     string
	Type     string   // string (default), integer, boolean or date-time
	Enum     []string // the accepted values
	Min, Max *int64   // bounds of an integer
	Pattern  *regexp.Regexp
	Required bool
	Repeated bool // may be given several times
	Doc      string
	// Fidelity marks a parameter of the mock's choosing.
	Fidelity *engine.Fidelity
}

// RuledBody is a body type with rules.
type RuledBody interface {
	FieldRules() map[string]engine.FieldRule
}

func requiredFields(body RuledBody) []string {
	rules := body.FieldRules()
	var out []string
	for _, name := range engine.BodyFields(body) {
		if rules[name].Required {
			out = append(out, name)
		}
	}
	return out
}

func ok(status int, body any) Response { return Response{Status: status, Body: body} }

// Routes lists every route of the API, in the table's order.
func (a *API) Routes() []Route { return slices.Clone(a.tab.routes) }

func paramNames(ps []Param) map[string]bool {
	out := make(map[string]bool, len(ps))
	for _, p := range ps {
		out[p.Name] = true
	}
	return out
}
