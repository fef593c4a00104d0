package handlers

// Routes and their documentation. Every family lists its routes (route,
// family.go), one line each, with an Op that documents the route: its
// parameters, its request and response Go types, its error statuses and
// what in it is a fidelity choice. The routes are what the OpenAPI
// document of the API (docs/openapi.json, docs/openapi.md) is generated
// from; the request types and the rules the validators read (enums,
// limits, patterns) are the same values the document publishes, so the
// two cannot drift.

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"
)

// Route is one registered route.
type Route struct {
	// Method is the HTTP method.
	Method string
	// Path is gin's path template with its base:
	// "/runtime/:region/v3/:account/:project/conversations" (in a
	// family's declaration, below the base).
	Path string
	// Family is the name of the family that serves it.
	Family string
	// Op documents it.
	Op *Op

	h   handlerFunc
	fam *Family // its credentials and error shape
}

// Fam is the family that serves the route.
func (r Route) Fam() *Family { return r.fam }

// Op documents one operation.
type Op struct {
	// ID is the operationId (unique, lowerCamel); Summary a short title.
	ID, Summary string
	// Doc is a longer description (Markdown).
	Doc string
	// Path refines path parameters (a pattern); the others are described
	// by their name (pathParams).
	Path []Param
	// Query lists the query parameters the operation reads.
	Query []Param
	// Headers lists request headers the operation reads besides the
	// family's credentials.
	Headers []Param
	// Body is a value of the request body's Go type (nil: no body); its
	// json-tagged fields are the body's fields.
	Body any
	// BodyOptional allows an empty body.
	BodyOptional bool
	// BodyPartial makes every field optional (an update of the fields
	// given).
	BodyPartial bool
	// BodyTypes are the media types the body may have besides
	// application/json (external events dispatch on it).
	BodyTypes []string
	// MaxBody raises the instance's body limit for the route (bytes; 0:
	// the instance's limit, limits.max_body_bytes).
	MaxBody int64
	// Responses are the answers other than errors, by status.
	Responses []Response
	// Errors are the error statuses the operation itself answers, besides
	// those of every route of its family (401, 403 where the family
	// answers it, 404 for a bad region, 413 for a body).
	Errors []int
	// Fidelity marks a route or an operation that exists, or is shaped, by
	// a choice of the mock (x-mock-fidelity).
	Fidelity *engine.Fidelity
	// Security, when set, are the credentials the operation accepts
	// instead of its family's (alternatives of scheme names).
	Security [][]string
}

// Response is one documented answer.
type Response struct {
	Status int
	// Body is a value of the body's Go type (nil: no body).
	Body any
	// Media is the media type of a body that is not JSON (a binary body,
	// such as audio/wav); Body is nil then.
	Media string
	// Doc says when it is answered.
	Doc string
	// Fidelity marks an answer that a fidelity switch selects.
	Fidelity *engine.Fidelity
}

// Param is a query parameter or a header: its schema and the rules its
// parser checks (the parser reads the same values).
type Param struct {
	Name string
	// Type is string (default), integer, boolean or date-time.
	Type string
	// Enum lists the accepted values.
	Enum []string
	// Min and Max bound an integer.
	Min, Max *int64
	// Pattern is a regular expression a string matches.
	Pattern *regexp.Regexp
	// Required parameters must be given.
	Required bool
	// Repeated parameters may be given several times.
	Repeated bool
	// Doc describes it.
	Doc string
	// Fidelity marks a parameter of the mock's choosing.
	Fidelity *engine.Fidelity
}

// RuledBody is a body type with rules.
type RuledBody interface {
	FieldRules() map[string]engine.FieldRule
}

// requiredFields lists the required fields of a body type, in order.
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

// ok is a success answer.
func ok(status int, body any) Response { return Response{Status: status, Body: body} }

// Routes lists every route of the API, in the table's order.
func (a *API) Routes() []Route { return slices.Clone(a.tab.routes) }

func joinPath(base, path string) string {
	if base == "/" {
		return path
	}
	return strings.TrimSuffix(base, "/") + path
}

// paramNames lists the names of parameters, to check a request's query
// against them.
func paramNames(ps []Param) map[string]bool {
	out := make(map[string]bool, len(ps))
	for _, p := range ps {
		out[p.Name] = true
	}
	return out
}

// statusText documents a status for answers with no Doc.
func statusText(status int) string { return http.StatusText(status) }
