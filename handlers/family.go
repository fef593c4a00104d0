package handlers

// The family table: the router, vocabularies, console counts, coverage
// catalogue and OpenAPI document derive from it. A new family is its own
// files plus one line in families.

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
// faults and the journal (conversations v1 has its own error shape).
type Family struct {
	// Name is a fault rule's match.family, the journal's family, the
	// document's tag.
	Name string
	// Base is "runtime", "builder" (both followed by /{region}) or
	// "messaging".
	Base  string
	Shape shape // the error body
	// Credential is the scenario credential kind of the family's keys;
	// without Headers the family authenticates in its handlers.
	Credential string
	// Headers carry the key (canonical form; the first found wins).
	Headers []string
	// Connector requires the chat connector token (X-TOKEN) besides the key.
	Connector bool
	// ProjectKeys: the family's keys and connector token are a project's.
	ProjectKeys bool
	// Forbid answers 403, rather than 401, to a valid key of another
	// account or project.
	Forbid bool
	// Marks are path fragments that claim an unrouted path below Base for
	// the family's 404 (the longest wins).
	Marks []string
	Doc   string
	// Security lists the scheme alternatives its routes accept
	// (Op.Security overrides).
	Schemes  map[string]Scheme
	Security [][]string
	Routes   []Route
	// State makes the family's in-memory state of one instance (nil: none).
	State  func(a *API) FamilyState
	Counts []Counted // for the console's overview
	// Presets are its named failure modes (action.preset).
	Presets     []faults.Preset
	ApplyPreset func(a *API, call faults.PresetCall) presetFunc
	// Codes are the error codes the family's operations answer besides
	// the edge's (catalogue.go), by status or by their Ops.
	Codes []ErrorCode
	// Machines and ClockEvents are the family's state machines and
	// virtual-clock work (engine/machines.go).
	Machines    []*Machine
	ClockEvents []ClockEvent
}

// FamilyState is a family's in-memory state in one instance.
type FamilyState interface {
	// Reset restores the scenario's initial state (under the load lock).
	Reset()
}

// Counted is one kind of resource a family holds.
type Counted struct {
	What string
	N    func(a *API) (int, error) // in every region
}

// Scheme is an OpenAPI security scheme.
type Scheme struct {
	Type, In, Name, Scheme, BearerFormat, Doc string
	Fidelity                                  *engine.Fidelity
}

// route declares a family's route: "METHOD /path" below its base, the
// handler and its documentation.
func route(pattern string, h handlerFunc, op *Op) Route {
	method, path, found := strings.Cut(pattern, " ")
	if !found || op == nil {
		panic("handlers: bad route " + pattern)
	}
	return Route{Method: method, Path: path, Op: op, h: h}
}

// FamilyRoutes are a family's routes as served: with base and family set.
func FamilyRoutes(f *Family) []Route {
	out := make([]Route, len(f.Routes))
	for i, r := range f.Routes {
		r.Path = basePath(f.Base) + r.Path
		r.Family, r.fam = f.Name, f
		out[i] = r
	}
	return out
}

func basePath(base string) string {
	if base == "messaging" {
		return "/messaging"
	}
	return "/" + base + "/:region"
}

// table is a family table ready to serve, immutable and shared by every
// instance.
type table struct {
	families []*Family
	routes   []Route
	engine   *gin.Engine
	faults   *faults.Vocabulary
	scenario *scenario.Vocabulary
	// catalogue is what the coverage report counts against.
	catalogue *coverage.Catalogue
	byName    map[string]*Family // the first family of each name
	maxBody   map[string]int64   // routes' own body limits, by path
}

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

func (t *table) family(name string) *Family { return t.byName[name] }

// familyOfPath guesses the family of an unrouted path, for its error
// shape (Family.Marks); nil outside the families' bases.
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

// newEngine makes the gin engine that dispatches the table's routes for
// every instance (API.ServeHTTP).
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
