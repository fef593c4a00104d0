// Package engine is the agent platform's domain, apart from HTTP: the
// conversation engine (chat, voice calls, scripts), agents with their
// branches, merges and deployments, alert rules and their evaluation,
// webhook scheduling, delivery and signing, outbound calls and simulated
// voice callers, number reservations, external events, the timeline's
// steps, and scenario loading. Its packages hold the rest, each family a
// service with its own state: the conversation rules (dialogue), the
// conversation reads (convquery), voices and audio caches (audio),
// telephony, test runs (testruns) and the seeded records (seeding), over
// what they all share (core). One Engine is one platform instance's
// domain state; the HTTP edge (package handlers) decodes, validates and
// authenticates a request, calls the engine or one of its services and
// answers. The engine never sees a request: it imports neither gin nor
// the edge, and every callback it runs inside a store transaction is its
// own. Everything timed runs on the instance's virtual clock.
package engine

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/engine/testruns"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// deps are what an engine is made of (OpenEngine wires them).
type deps struct {
	Store  *store.Store
	Clock  *clock.Clock
	Faults *faults.Set
	Logger *slog.Logger
}

// Engine is the domain of one platform instance, apart from HTTP: its
// data lives in the store; the view (the scenario's accounts, projects
// and credentials) is swapped atomically by SetScenario.
type Engine struct {
	store  *store.Store
	clock  *clock.Clock
	faults *faults.Set
	Log    *slog.Logger
	// rec receives the machines' transitions and the clock work's runs
	// (machines.go).
	rec coverage.Recorder

	w atomic.Pointer[View]

	// cfg is how Open wired the instance. loadMu serialises scenario loads
	// and resets and guards sc (the scenario as loaded) and snap (its
	// initial data); it is held while every family resets, so it comes
	// before every lock below.
	cfg    Config
	loadMu sync.Mutex
	sc     *scenario.Scenario
	snap   *store.Snapshot

	// gen counts resets: timers and background sends of an earlier
	// generation stop (alerts_schedule.go, webhooks_delivery.go).
	gen atomic.Uint64

	// Each family's in-memory state (what is not stored data: indexes,
	// live sessions, rate windows, logs), declared in the family's file,
	// behind the family's one lock; the services of the family packages
	// hold theirs (services.go). Chat, conversations, dni, handoff,
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
	//	outbound.mu
	//	convq           its concurrency cache's lock, held across the store
	//	                reads of a cache rebuild
	//	audio           its locks: the audio cache's, held across an entry's
	//	                and its file's store calls, taken under agents.mu
	//	                (agent delete); the voice libraries', held across a
	//	                library's store update
	//	ids.mu          the id streams: a leaf
	agents   agentsState
	alerts   alertsState
	webhooks webhooksState
	outbound outboundState
	convq    *convquery.Service
	audio    *audio.Service
	testRuns *testruns.Service
	tel      *telephony.Service
	// messaging is the access tokens' key and generations, and the id
	// stream of messaging events (messaging_tokens.go); its mu is a leaf.
	messaging messagingState

	// onReset are the edge's resets (OnReset), run at the end of a reset.
	onReset []func(sc *scenario.Scenario)
	// timeline is the run of the scenario's timeline of the current
	// generation (nil: no timeline); onActivity see what it runs, and
	// sessions holds its messaging sessions (the edge's). Set before Load.
	timeline   atomic.Pointer[timelineRun]
	onActivity []func(Activity)
	sessions   Sessions

	// bg is cancelled by Interrupt and Close; webhook attempts watch it.
	bg     context.Context
	cancel context.CancelFunc

	ids core.IDs // resource and correlation ids
}

// newEngine returns an engine over its dependencies. OpenEngine loads its
// scenario.
func newEngine(d deps) *Engine {
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Engine{store: d.Store, clock: d.Clock, faults: d.Faults, Log: log, rec: coverage.Discard()}
	e.bg, e.cancel = context.WithCancel(context.Background())
	e.w.Store(newView(&scenario.Scenario{})) // until SetScenario (parsing the default here cost a third of New)
	e.reseed(1)
	e.messaging.newMessagingKey()
	e.agents.idx.Store(&runtimeIndex{})
	e.webhooks.net = defaultTargetNet()
	e.webhooks.allow = &scenario.HostList{}
	e.webhooks.client = e.newDeliveryClient()
	e.newServices()
	return e
}

// SetScenario makes sc the view (accounts, projects, credentials,
// dialogues, limits) and reseeds the ID generator. It does not touch stored
// data; the platform seeds and resets the store.
func (a *Engine) SetScenario(sc *scenario.Scenario) {
	a.w.Store(newView(sc))
	a.reseed(sc.Seed)
}

// reseed restarts the ID generators from a seed (0 means 1).
func (a *Engine) reseed(seed int64) { a.ids.Reseed(seed) }

func (a *Engine) View() *View { return a.w.Load() }

// Interrupt cancels the engine's background context and stops its clock,
// without waiting: a webhook attempt in flight fails at once, and an
// Advance in progress stops at its next timer boundary. Requests in flight
// may still finish; Close follows.
func (e *Engine) Interrupt() {
	e.cancel()
	e.clock.Close()
}

// Close stops all background work of the engine and waits for it, then
// stops the clock and closes the store.
func (e *Engine) Close() {
	e.cancel()
	e.webhooks.client.CloseIdleConnections() // the delivery client's own pool
	e.clock.Close()
	if err := e.store.Close(); err != nil {
		e.Log.Error("close store", "err", err)
	}
}

// resetFamilies brings the families' in-memory state back to the scenario's
// initial state (after the store has been restored and the clock reset):
// timers are re-armed, live connections closed. The generation moves
// first, so that timers and sends of the earlier one stop.
func (e *Engine) resetFamilies(restored bool) {
	e.gen.Add(1)
	e.resetAgents(restored)
	e.resetAlerts()
	e.resetWebhooks()
	e.resetOutbound()
	e.testRuns.Reset()
	e.convq.Reset()
	e.audio.Reset()
	e.resetMessagingTokens()
	e.armRetention()
	for _, fn := range e.onReset {
		fn(e.sc)
	}
	e.armTimeline() // last: its first firing may be due at once (real clock)
}

// Generation is the current reset generation.
func (a *Engine) Generation() uint64 { return a.gen.Load() }

// RegionPair resolves the request's region to its pair, per base (the
// region table is scenario's).
func RegionPair(base, region string) (string, bool) {
	switch base {
	case "runtime":
		return scenario.RuntimeRegion(region)
	case "builder":
		return scenario.BuilderRegion(region)
	}
	return "", true
}

// SubPath is the path below the family's base address: "/v1/..." for
// "/runtime/us-1/v1/...".
func SubPath(p string) string {
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

// RegionOf is the region segment of a path ("" when the base has none).
func RegionOf(p string) string {
	for _, base := range []string{"/runtime/", "/builder/"} {
		if rest, ok := strings.CutPrefix(p, base); ok {
			region, _, _ := strings.Cut(rest, "/")
			return region
		}
	}
	return ""
}

// NewID returns prefix plus n random characters of alphabet, from the
// instance's seeded generator: the same seed gives the same IDs.
func (a *Engine) NewID(prefix, alphabet string, n int) string {
	return a.ids.NewID(prefix, alphabet, n)
}

// NewUUID returns a random (version 4 layout) UUID from the seeded generator.
func (a *Engine) NewUUID() string { return a.ids.NewUUID() }

// NewCorrelationID returns a UUID from the correlation stream.
func (a *Engine) NewCorrelationID() string { return a.ids.NewCorrelationID() }
