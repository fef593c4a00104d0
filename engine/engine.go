// Package engine is the agent platform's domain, apart from HTTP: the
// conversation engine (dialogue, scripts, the conversation rules), agents
// with their branches, merges and deployments, alert rules and their
// evaluation, webhook scheduling, delivery and signing, outbound calls and
// simulated voice callers, number reservations, external events, the
// concurrency series, seeding and scenario loading. One Engine is one
// platform instance's domain state; the HTTP edge (package handlers)
// decodes, validates and authenticates a request, calls the engine and
// answers. The engine never sees a request: it imports neither gin nor
// the edge, and every callback it runs inside a store transaction is its
// own. Everything timed runs on the instance's virtual clock.
package engine

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/coverage"
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
	//	outbound.mu
	//	concurrency.mu  held across the store reads of a cache rebuild
	//	audio.mu        held across an entry's and its file's store calls;
	//	                taken under agents.mu (agent delete)
	//	voices.mu       held across a voice library's store update
	//	mu              the id streams below: a leaf
	agents      agentsState
	alerts      alertsState
	webhooks    webhooksState
	outbound    outboundState
	Concurrency concurrencyState
	voices      voicesState
	audio       audioState
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

	mu   sync.Mutex // guards rng and corr
	rng  *rand.Rand // resource ids
	corr *rand.Rand // correlation ids (a separate stream, so that error
	// answers and control calls do not shift resource ids)
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
func (a *Engine) reseed(seed int64) {
	if seed == 0 {
		seed = 1
	}
	s := uint64(seed)
	a.mu.Lock()
	a.rng = rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
	a.corr = rand.New(rand.NewPCG(s^0xc2b2ae3d27d4eb4f, s))
	a.mu.Unlock()
}

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
	e.resetTestRuns()
	e.resetConcurrency()
	e.resetAudio()
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

// NewUUID returns a random (version 4 layout) UUID from the seeded generator.
func (a *Engine) NewUUID() string {
	a.mu.Lock()
	hi, lo := a.rng.Uint64(), a.rng.Uint64()
	a.mu.Unlock()
	return formatUUID(hi, lo)
}

// NewCorrelationID returns a UUID from the correlation stream.
func (a *Engine) NewCorrelationID() string {
	a.mu.Lock()
	hi, lo := a.corr.Uint64(), a.corr.Uint64()
	a.mu.Unlock()
	return formatUUID(hi, lo)
}

func formatUUID(hi, lo uint64) string {
	return FormatUUIDBits(hi&^0xf000|0x4000, lo&^(0xc<<60)|0x8<<60)
}

// FormatUUIDBits formats 128 bits as a UUID (8-4-4-4-12 hex digits),
// unchanged.
func FormatUUIDBits(hi, lo uint64) string {
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
	Base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)
