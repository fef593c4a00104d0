package handlers

// The family table. Each family declares itself once, in its own file, as
// a Family value: its name, where it lives, its credentials and error
// shape, its routes, its state, what it counts, its presets, its error
// catalogue, its state machines and its documentation. One table lists
// them (families, below); the router, the family of an unrouted path, the
// faults' and the scenario's vocabularies, the runtime families of the
// alert metrics, the console's counts and the OpenAPI document all derive
// from it. A new family is its own files plus one line in the table.

import (
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// families lists every API family, in the order the docs use.
var families = []*Family{
	famChat,
	famMessaging,
	famAgents,
	famVoiceLibrary,
	famVoiceSamples,
	famAudioCache,
	famAlerts,
	famWebhooks,
	famConversations,
	famConversationsV1,
	famConcurrency,
	famOutbound,
	famExternalEvents,
	famDNI,
	famHandoff,
}

// Family is one API family. Families with the same Name are one family to
// faults and the journal (the Conversations API v1 has an error shape of
// its own).
type Family struct {
	// Name is the family's name: a fault rule's match.family, the
	// journal's family, the document's tag.
	Name string
	// Base is where the family lives: "runtime" ({base}/runtime/{region}),
	// "builder" ({base}/builder/{region}) or "messaging" ({base}/messaging).
	Base string
	// Shape is the family's error body.
	Shape shape
	// Credential is the scenario credential kind of the family's keys.
	// The router authenticates a route's caller when Headers is set; a
	// family without Headers authenticates in its handlers.
	Credential string
	// Headers carry the key, first found wins, in canonical form
	// (http.CanonicalHeaderKey).
	Headers []string
	// Connector requires the chat connector token (X-TOKEN) besides the key.
	Connector bool
	// ProjectKeys: the family's keys (and its connector token) belong to
	// one project.
	ProjectKeys bool
	// Forbid answers 403, rather than 401, to a valid key of another
	// account or project.
	Forbid bool
	// Marks are path fragments that claim an unrouted path below Base for
	// the family, for the shape of its 404; the longest mark found wins,
	// and a family without marks takes what no mark claims.
	Marks []string
	// Doc describes the family (the OpenAPI document's tag).
	Doc string
	// Schemes are the OpenAPI security schemes of the family's
	// credentials; Security lists the alternatives its routes accept (an
	// Op's Security overrides it).
	Schemes  map[string]Scheme
	Security [][]string
	// Routes are the family's operations.
	Routes []Route
	// State makes the family's in-memory state of one instance (nil: it
	// has none of its own); Reset brings it back to the scenario's
	// initial state.
	State func(a *API) FamilyState
	// Counts are what the family holds, for the console's overview.
	Counts []Counted
	// Presets are the family's named failure modes (a fault rule's
	// action.preset); ApplyPreset applies one to a request.
	Presets     []faults.Preset
	ApplyPreset func(a *API, call faults.PresetCall) presetFunc
	// Codes are the error codes the family's operations answer besides
	// those the edge answers for every route (catalogue.go): each is
	// answered by the family's operations that answer its status, or by
	// those its Ops name only. With the operations' statuses (Op.Errors)
	// they are each operation's error catalogue.
	Codes []ErrorCode
	// Machines are the state machines of the family's resources, and
	// ClockEvents the kinds of work the virtual clock runs for it
	// (engine/machines.go).
	Machines    []*Machine
	ClockEvents []ClockEvent
}

// FamilyState is a family's in-memory state in one instance.
type FamilyState interface {
	// Reset brings the state back to the scenario's initial state; the
	// instance's load lock is held.
	Reset()
}

// Counted is one kind of resource a family holds.
type Counted struct {
	What string
	// N counts them in every region.
	N func(a *API) (int, error)
}

// Scheme is an OpenAPI security scheme.
type Scheme struct {
	Type, In, Name, Scheme, BearerFormat, Doc string
	Fidelity                                  *engine.Fidelity
}

// route declares one route of a family: "METHOD /path" below the family's
// base, the handler (a method expression, bound to the instance at
// dispatch) and its documentation.
func route(pattern string, h handlerFunc, op *Op) Route {
	method, path, found := strings.Cut(pattern, " ")
	if !found || op == nil {
		panic("handlers: bad route " + pattern)
	}
	return Route{Method: method, Path: path, Op: op, h: h}
}

// FamilyRoutes are a family's routes as it serves them: their paths with
// the family's base, their family set.
func FamilyRoutes(f *Family) []Route {
	out := make([]Route, len(f.Routes))
	for i, r := range f.Routes {
		r.Path = joinPath(basePath(f.Base), r.Path)
		r.Family, r.fam = f.Name, f
		out[i] = r
	}
	return out
}

// basePath is the path prefix of a base.
func basePath(base string) string {
	if base == "messaging" {
		return "/messaging"
	}
	return "/" + base + "/:region"
}

// table is a family table made ready to serve: its routes with their full
// paths, the gin engine that dispatches them and the vocabularies derived
// from it. It is immutable once made and shared by every instance.
type table struct {
	families []*Family
	routes   []Route
	engine   *gin.Engine
	faults   *faults.Vocabulary
	scenario *scenario.Vocabulary
	// catalogue is what the coverage report counts against (catalogue.go).
	catalogue *coverage.Catalogue
	// byName is the first family of each name.
	byName map[string]*Family
	// maxBody are the routes' own body limits, by path (routeBodyLimits).
	maxBody map[string]int64
}

// defaultTable is the table of families, made once per process.
var defaultTable = sync.OnceValue(func() *table { return newTable(families) })

// newTable makes a table of fams (tests add families of their own).
func newTable(fams []*Family) *table {
	t := &table{byName: map[string]*Family{}}
	kinds := map[string]bool{}
	project := map[string]bool{}
	sc := &scenario.Vocabulary{}
	fv := &faults.Vocabulary{}
	addKind := func(kind string, needsProject bool) {
		if kind == "" {
			return
		}
		if !kinds[kind] {
			kinds[kind] = true
			sc.Kinds = append(sc.Kinds, kind)
		}
		if needsProject && !project[kind] {
			project[kind] = true
			sc.ProjectKinds = append(sc.ProjectKinds, kind)
		}
	}
	for _, f := range fams {
		t.families = append(t.families, f)
		if _, dup := t.byName[f.Name]; !dup {
			t.byName[f.Name] = f
			fv.Families = append(fv.Families, f.Name)
		}
		addKind(f.Credential, f.ProjectKeys)
		if f.Connector {
			addKind(scenario.KindConnector, f.ProjectKeys)
		}
		fv.Presets = append(fv.Presets, f.Presets...)
		t.routes = append(t.routes, FamilyRoutes(f)...)
	}
	sc.Faults = fv
	t.faults, t.scenario = fv, sc
	t.catalogue = t.newCatalogue()
	t.maxBody = routeBodyLimits(t.routes)
	t.engine = t.newEngine()
	return t
}

// Vocabulary is what scenarios and fault rules may name: the family
// table's credential kinds, families and presets.
func Vocabulary() *scenario.Vocabulary { return defaultTable().scenario }

// Families lists the families, in the order the docs use.
func Families() []*Family { return slices.Clone(defaultTable().families) }

// family is the table's first family of a name (nil for none).
func (t *table) family(name string) *Family { return t.byName[name] }

// familyOfPath guesses the family of an unrouted path, for its error shape:
// the family of the path's base with the longest mark in the path, else the
// base's family without marks. It is nil outside the families' bases.
func (t *table) familyOfPath(p string) *Family {
	var best, fallback *Family
	bestLen := 0
	for _, f := range t.families {
		b := basePrefix(f.Base)
		if !strings.HasPrefix(p, b+"/") && p != b {
			continue
		}
		if len(f.Marks) == 0 {
			if fallback == nil {
				fallback = f
			}
			continue
		}
		for _, m := range f.Marks {
			if len(m) > bestLen && strings.Contains(p, m) {
				best, bestLen = f, len(m)
			}
		}
	}
	if best != nil {
		return best
	}
	return fallback
}

// basePrefix is the literal start of a base's addresses.
func basePrefix(base string) string { return "/" + base }

// isRuntime reports whether the family lives under the runtime address
// (its 5xx answers count as api_errors: docs/fidelity.md M12.6).
func (f *Family) isRuntime() bool { return f.Base == "runtime" }

// QuietGin sets gin's process-wide mode to release once, unless GIN_MODE
// is set: gin's debug mode prints every route into users' test output.
var QuietGin = sync.OnceFunc(func() {
	if os.Getenv(gin.EnvGinMode) == "" {
		gin.SetMode(gin.ReleaseMode)
	}
})

// newEngine makes the gin engine that dispatches the table's routes. Every
// instance serves through it: API.ServeHTTP hands it the request with the
// request's state, which names the instance (begin).
func (t *table) newEngine() *gin.Engine {
	QuietGin()
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.Use(begin, recovery, correlation, record)
	e.NoRoute(handleNoRoute)
	e.NoMethod(handleNoMethod)
	for _, r := range t.routes {
		e.Handle(r.Method, r.Path, dispatch(r, t.catalogue.OperationIndex(r.Op.ID)))
	}
	return e
}
