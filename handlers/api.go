// Package handlers serves every family of the agent platform API. Each
// family declares itself once, in its own file, as a Family: its routes
// (one line each, as miniredis lists its commands), credentials, error
// shape, state, counts, presets and documentation; the family table
// (family.go) lists them, and the router, the vocabularies of faults and
// scenarios and the OpenAPI document derive from it. The table's gin
// engine is built once per process and shared: each API (one per platform
// instance) serves through it, and every handler is a method expression
// bound at dispatch to the API that received the request. A sub-resource
// with routes of its own has its own file (agents_branches.go,
// telephony_numbers.go, messaging_socket.go). Handlers return an error
// value; one renderer per family shape writes it.
//
// Files prefixed engine_ hold the HTTP-free engine the handlers call: the
// conversation engine and its dialogue and script, seeding and generation,
// branch merges, simulated voice callers, alert evaluation and webhook
// delivery. They never see a request (no gin import: engine_test.go checks
// it), so a request travels one way: edge (middleware) → family handler →
// engine → store, and back.
package handlers

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// deps are what the API needs from its instance (Open wires them).
type deps struct {
	Store   *store.Store
	Clock   *clock.Clock
	Faults  *faults.Set
	Journal *Journal
	Logger  *slog.Logger
	Observe func(Exchange)
}

// API holds the state every family shares. Its data lives in the store; the
// world (the scenario's accounts, projects and credentials) is swapped
// atomically by SetScenario.
type API struct {
	store   *store.Store
	clock   *clock.Clock
	faults  *faults.Set
	journal *Journal
	log     *slog.Logger

	w atomic.Pointer[World]

	// tab is the family table the API serves (family.go): shared by
	// every instance, read-only. states holds the in-memory state of the
	// families that declare one (Family.State), made by newAPI.
	tab    *table
	states []FamilyState
	// observe, when set, sees every exchange (observe.go).
	observe func(Exchange)

	// cfg is how Open wired the instance. loadMu serialises scenario loads
	// and resets and guards sc (the scenario as loaded) and snap (its
	// initial data); it is held while every family resets, so it comes
	// before every lock below.
	cfg    Config
	loadMu sync.Mutex
	sc     *scenario.Scenario
	snap   *store.Snapshot

	// gen counts resets: timers and background sends of an earlier
	// generation stop (engine_alerts.go, engine_webhooks.go).
	gen atomic.Uint64

	// Each family's in-memory state (what is not stored data: indexes,
	// live sessions, rate windows, logs), declared in the family's file,
	// behind the family's one lock. Chat, conversations, dni, handoff,
	// external events and telephony keep everything in the store
	// (telephony's writes take agents.mu: connectors and numbers are agent
	// sub-resources).
	//
	// Lock order: a lock may be taken while one above it is held, never
	// the reverse; store, clock, faults and journal locks are leaves (no
	// family lock is taken under them, except that clock callbacks run
	// with no family lock held and take theirs).
	//
	//	loadMu          (above) held while a load or reset resets every family
	//	agents.mu       held across store calls; never taken by script,
	//	                which runs inside store transactions and reads the
	//	                runtime index without a lock
	//	alerts.mu       held across an evaluation pass and store calls
	//	alerts.schedMu  the evaluation timer's state: a leaf
	//	webhooks.mu     taken under alerts.mu (a pass announces events)
	//	session.mu      one per messaging session (messaging_session.go),
	//	                then its sockets' rtConn.mu
	//	messaging.mu    taken under session.mu, never the reverse
	//	outbound.mu
	//	concurrency.mu  held across the store reads of a cache rebuild
	//	mu              the id streams below: a leaf
	agents      agentsState
	alerts      alertsState
	webhooks    webhooksState
	messaging   messagingState
	outbound    outboundState
	concurrency concurrencyState

	// bg is cancelled by Interrupt and Close; webhook attempts and sockets
	// watch it, and socket goroutines register in wg.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex // guards rng and corr
	rng  *rand.Rand // resource ids
	corr *rand.Rand // correlation ids (a separate stream, so that error
	// answers and control calls do not shift resource ids)
}

// newAPI returns an API over its dependencies serving the family table
// tab. Open loads its scenario.
func newAPI(d deps, tab *table) *API {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := &API{store: d.Store, clock: d.Clock, faults: d.Faults, journal: d.Journal, log: log, tab: tab, observe: d.Observe}
	a.bg, a.cancel = context.WithCancel(context.Background())
	a.w.Store(newWorld(&scenario.Scenario{})) // until SetScenario (parsing the default here cost a third of New)
	a.reseed(1)
	a.agents.idx.Store(&runtimeIndex{})
	a.messaging.randomKey = make([]byte, 32)
	crand.Read(a.messaging.randomKey) // never fails (crypto/rand crashes the process rather)
	a.webhooks.net = defaultTargetNet()
	a.webhooks.allow = &scenario.HostList{}
	a.webhooks.client = a.newDeliveryClient()
	for _, f := range tab.families {
		if f.State != nil {
			a.states = append(a.states, f.State(a))
		}
	}
	return a
}

// SetScenario makes sc the world (accounts, projects, credentials,
// dialogues, limits) and reseeds the ID generator. It does not touch stored
// data; the platform seeds and resets the store.
func (a *API) SetScenario(sc *scenario.Scenario) {
	a.w.Store(newWorld(sc))
	a.reseed(sc.Seed)
}

// reseed restarts the ID generators from a seed (0 means 1).
func (a *API) reseed(seed int64) {
	if seed == 0 {
		seed = 1
	}
	s := uint64(seed)
	a.mu.Lock()
	a.rng = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	a.corr = rand.New(rand.NewPCG(s^0xc2b2ae3d27d4eb4f, s))
	a.mu.Unlock()
}

func (a *API) world() *World { return a.w.Load() }

// Interrupt cancels the API's background context and stops its clock,
// without waiting: a webhook attempt in flight fails at once, and an
// Advance in progress stops at its next timer boundary. Requests in flight
// may still finish; Close follows.
func (a *API) Interrupt() {
	a.cancel()
	a.clock.Close()
}

// Close stops all background work of the API and waits for it, then
// stops the clock and closes the store. Serve no request after it.
func (a *API) Close() {
	a.cancel()
	a.wg.Wait()
	a.webhooks.client.CloseIdleConnections() // the delivery client's own pool
	a.clock.Close()
	if err := a.store.Close(); err != nil {
		a.log.Error("close store", "err", err)
	}
}

// ServeHTTP serves the API's families (every request is journaled): the
// table's engine routes the request, and finds this API in the request's
// state, which rides on the response writer (stateOf).
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := &reqState{api: a}
	st.carrier = carrier{ResponseWriter: w, st: st}
	a.tab.engine.ServeHTTP(&st.carrier, r)
}

// resetFamilies brings the families' in-memory state back to the scenario's
// initial state (after the store has been restored and the clock reset):
// timers are re-armed, live connections closed. The generation moves
// first, so that timers and sends of the earlier one stop.
func (a *API) resetFamilies() {
	a.gen.Add(1)
	a.resetAgents()
	a.resetAlerts()
	a.resetWebhooks()
	a.resetMessaging()
	a.resetOutbound()
	a.resetConcurrency()
	for _, st := range a.states {
		st.Reset()
	}
	a.armRetention()
}

// familyState is the in-memory state of type T of a family that declares
// one (Family.State). Found by its type, it names no family, so that a
// family's handlers can reach it without referring to the family's
// declaration.
func familyState[T FamilyState](a *API) T {
	for _, s := range a.states {
		if t, ok := s.(T); ok {
			return t
		}
	}
	panic("handlers: no family state of this type")
}

// generation is the current reset generation.
func (a *API) generation() uint64 { return a.gen.Load() }

// regionPair resolves the request's region to its pair, per base (the
// region table is scenario's).
func regionPair(base, region string) (string, bool) {
	switch base {
	case "runtime":
		return scenario.RuntimeRegion(region)
	case "builder":
		return scenario.BuilderRegion(region)
	}
	return "", true
}

// subPath is the path below the family's base address: "/v1/..." for
// "/runtime/us-1/v1/...".
func subPath(p string) string {
	for _, base := range []string{"/runtime/", "/builder/"} {
		if rest, ok := strings.CutPrefix(p, base); ok {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				return rest[i:]
			}
			return "/"
		}
	}
	if rest, ok := strings.CutPrefix(p, "/messaging"); ok {
		if rest == "" {
			return "/"
		}
		return rest
	}
	return p
}

// regionOf is the region segment of a path ("" when the base has none).
func regionOf(p string) string {
	for _, base := range []string{"/runtime/", "/builder/"} {
		if rest, ok := strings.CutPrefix(p, base); ok {
			region, _, _ := strings.Cut(rest, "/")
			return region
		}
	}
	return ""
}

// newID returns prefix plus n random characters of alphabet, from the
// instance's seeded generator: the same seed gives the same IDs.
func (a *API) newID(prefix, alphabet string, n int) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	b.Grow(len(prefix) + n)
	b.WriteString(prefix)
	for range n {
		b.WriteByte(alphabet[a.rng.IntN(len(alphabet))])
	}
	return b.String()
}

// newUUID returns a random (version 4 layout) UUID from the seeded generator.
func (a *API) newUUID() string {
	a.mu.Lock()
	hi, lo := a.rng.Uint64(), a.rng.Uint64()
	a.mu.Unlock()
	return formatUUID(hi, lo)
}

// newCorrelationID returns a UUID from the correlation stream.
func (a *API) newCorrelationID() string {
	a.mu.Lock()
	hi, lo := a.corr.Uint64(), a.corr.Uint64()
	a.mu.Unlock()
	return formatUUID(hi, lo)
}

func formatUUID(hi, lo uint64) string {
	return formatUUIDBits(hi&^0xf000|0x4000, lo&^(0xc<<60)|0x8<<60)
}

// formatUUIDBits formats 128 bits as a UUID (8-4-4-4-12 hex digits),
// unchanged.
func formatUUIDBits(hi, lo uint64) string {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	var b [36]byte // 8-4-4-4-12 hex digits
	hex.Encode(b[0:8], u[0:4])
	hex.Encode(b[9:13], u[4:6])
	hex.Encode(b[14:18], u[6:8])
	hex.Encode(b[19:23], u[8:10])
	hex.Encode(b[24:36], u[10:16])
	b[8], b[13], b[18], b[23] = '-', '-', '-', '-'
	return string(b[:])
}

const (
	digits = "0123456789"
	base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)
