// Package engine is the agent platform's domain apart from HTTP: chat,
// voice calls and scripts, agents and their branches and deployments,
// alerts, webhooks, outbound calls, external events, the timeline and
// scenario loading. Its subpackages are services with their own state
// over what they share (core). The edge (package handlers) decodes and
// authenticates requests and calls in; the engine never sees a request.
// Everything timed runs on the instance's virtual clock.
package engine

import (
	"context"
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

// Engine is the domain of one platform instance, apart from HTTP: its
// data lives in the store; the view (the scenario's accounts, projects
// and credentials) is swapped atomically by SetScenario.
type Engine struct {
	store  *store.Store
	clock  *clock.Clock
	faults *faults.Set
	Log    *slog.Logger
	// rec receives the machines' transitions and the clock's runs.
	rec coverage.Recorder

	w atomic.Pointer[View]

	// loadMu serialises loads and resets and guards sc and snap (the
	// scenario's initial data); it comes before every lock below.
	cfg    Config
	loadMu sync.Mutex
	sc     *scenario.Scenario
	snap   *store.Snapshot

	// gen counts resets: timers and sends of an earlier generation stop.
	gen atomic.Uint64

	// Each family's in-memory state, behind the family's one lock
	// (telephony's writes take agents.mu). Lock order, top first: a lock
	// may be taken while one above it is held, never the reverse; store,
	// clock, faults and journal locks are leaves, and clock callbacks run
	// with no family lock held.
	//	loadMu → agents.mu (never by script: it runs inside store
	//	transactions) → alerts.mu → webhooks.mu → outbound.mu → convq's
	//	cache lock → audio's locks (the cache's under agents.mu);
	//	alerts.schedMu, messaging.mu and ids.mu are leaves.
	agents   agentsState
	alerts   alertsState
	webhooks webhooksState
	outbound outboundState
	convq    *convquery.Service
	audio    *audio.Service
	testRuns *testruns.Service
	tel      *telephony.Service
	// messaging: token key, generations and event ids; its mu is a leaf.
	messaging messagingState

	// onReset are the edge's resets (OnReset), run at the end of a reset.
	onReset []func(sc *scenario.Scenario)
	// timeline is the current generation's timeline run (nil: none). Set
	// before Load, like onActivity and sessions.
	timeline   atomic.Pointer[timelineRun]
	onActivity []func(Activity)
	sessions   Sessions

	// bg is cancelled by Interrupt and Close; webhook attempts watch it.
	bg     context.Context
	cancel context.CancelFunc

	ids core.IDs // resource and correlation ids
}

// newEngine returns an engine of cfg (its defaults set) over st, with the
// webhook targets allowed besides the scenario's.
func newEngine(cfg Config, st *store.Store, allow *scenario.HostList) *Engine {
	e := &Engine{cfg: cfg, store: st, clock: clock.New(cfg.Clock, startOf(cfg, cfg.Scenario)),
		faults: faults.NewSet(cfg.Vocabulary.Faults, 1), Log: cfg.Logger, rec: cfg.Recorder}
	if e.rec == nil {
		e.rec = coverage.Discard()
	}
	e.bg, e.cancel = context.WithCancel(context.Background())
	e.w.Store(newView(&scenario.Scenario{})) // until SetScenario (parsing the default here cost a third of New)
	e.reseed(1)
	e.messaging.newMessagingKey()
	e.agents.idx.Store(&runtimeIndex{})
	e.webhooks.net = defaultTargetNet()
	e.webhooks.allow = allow
	e.webhooks.client = e.newDeliveryClient()
	e.newServices()
	return e
}

// SetScenario makes sc the view and reseeds the ID generator; stored data
// is the platform's to seed and reset.
func (a *Engine) SetScenario(sc *scenario.Scenario) {
	a.w.Store(newView(sc))
	a.reseed(sc.Seed)
}

// reseed restarts the ID generators from a seed (0 means 1).
func (a *Engine) reseed(seed int64) { a.ids.Reseed(seed) }

func (a *Engine) View() *View { return a.w.Load() }

// Interrupt cancels the background context and stops the clock without
// waiting; Close follows.
func (e *Engine) Interrupt() {
	e.cancel()
	e.clock.Close()
}

// Close stops the engine's background work, waits for it, and closes the
// clock and store.
func (e *Engine) Close() {
	e.cancel() // the delivery client keeps no connections (DisableKeepAlives)
	e.clock.Close()
	if err := e.store.Close(); err != nil {
		e.Log.Error("close store", "err", err)
	}
}

// resetFamilies brings in-memory state back to the scenario's start. Call
// it after the store is restored and the clock reset: it re-arms timers,
// which a later clock.Reset would drop. The generation moves first so old
// timers stop.
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

// RegionPair resolves the request's region to its pair, per base.
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

// NewID returns prefix plus n seeded random characters of alphabet.
func (a *Engine) NewID(prefix, alphabet string, n int) string {
	return a.ids.NewID(prefix, alphabet, n)
}

// NewUUID returns a random (version 4 layout) UUID from the seeded generator.
func (a *Engine) NewUUID() string { return a.ids.NewUUID() }

// NewCorrelationID returns a UUID from the correlation stream.
func (a *Engine) NewCorrelationID() string { return a.ids.NewCorrelationID() }
