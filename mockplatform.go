// Package mockplatform emulates the agent platform API (chat, messaging
// sessions, agents, alerts and webhooks, concurrency, outbound calling,
// external events, conversations, number reservation, handoff state) for
// tests, in process or as the mockd server.
//
// Quick start, in a Go test:
//
//	p := mockplatform.Start(t) // default scenario, manual clock, cleaned up with t
//	resp, err := p.Client().Post(p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", ...)
//	p.Advance(10 * time.Minute) // fires every timer that falls due, synchronously
//	for _, r := range p.Requests(mockplatform.RequestFilter{Family: "chat"}) { ... }
//
// Every instance is isolated (clock, store, fault rules, journal); many
// run in parallel in one test binary. New sets gin to release mode once
// unless GIN_MODE is set.
package mockplatform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Re-exported types, so users need import only this package.
type (
	// Scenario is a parsed scenario.
	Scenario = scenario.Scenario
	// Fault is a fault rule.
	Fault = faults.Rule
	// FaultMatch selects the requests of a fault rule.
	FaultMatch = faults.Match
	// FaultAction is what a fault rule does.
	FaultAction = faults.Action
	// FaultStatus is a fault rule with its counters.
	FaultStatus = faults.Status
	// Request is one entry of the request journal.
	Request = journal.Entry
	// RequestFilter selects journal entries.
	RequestFilter = journal.Filter
	// ClockMode is manual or real.
	ClockMode = clock.Mode
)

// Clock modes.
const (
	ClockManual = clock.ModeManual
	ClockReal   = clock.ModeReal
)

// TB is the part of testing.TB that Start needs.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// Option configures a Platform at construction.
type Option func(*config)

type config struct {
	sc        *scenario.Scenario
	scs       []*scenario.Scenario // every scenario option, merged by New
	sources   []ScenarioSource     // their YAML, for runners that pass it on (nil entry: WithScenario)
	err       error
	mode      clock.Mode
	start     time.Time
	dataFile  string
	logger    *slog.Logger
	seed      *int64
	noListen  bool
	modeIsSet bool
	scChecked bool        // sc passed ValidateScenario already (a world's inherited scenario)
	guard     guardConfig // control plane protection (guard.go)
	tb        TB          // the test that started the platform (Start), if any

	progress   func(Progress)
	publicURL  string
	worlds     worldLimits // worlds this platform may host (see worlds.go)
	mount      *mount      // set on a world: where it is served
	extensions []any
	targets    []string // webhook target allow-list (WithWebhookTargets)
}

// testObserve is set by this package's TestMain only, before any platform
// starts: it checks every exchange against the OpenAPI document.
var testObserve func(tb TB, sc *Scenario, ex handlers.Exchange)

// testCoverage is set by this package's TestMain only: Start calls it as
// the test ends (coverage_suite_test.go).
var testCoverage func(tb TB, p *Platform)

// WithScenario uses a parsed scenario instead of the default one. Several
// scenario options are merged in order, as mockd merges --scenario files.
func WithScenario(sc *Scenario) Option {
	return func(c *config) {
		c.scs = append(c.scs, sc)
		c.sources = append(c.sources, ScenarioSource{})
	}
}

// WithScenarioFile loads the scenario from YAML files, merged in order.
func WithScenarioFile(paths ...string) Option {
	return func(c *config) {
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				c.err = errors.Join(c.err, fmt.Errorf("scenario: %w", err))
				continue
			}
			sc, err := handlers.Vocabulary().Parse(path, data)
			c.err = errors.Join(c.err, err)
			c.scs = append(c.scs, sc)
			c.sources = append(c.sources, ScenarioSource{Name: path, YAML: data})
		}
	}
}

// WithScenarioYAML parses the scenario from YAML bytes.
func WithScenarioYAML(data []byte) Option {
	return func(c *config) {
		sc, err := parseScenario(data)
		c.err = errors.Join(c.err, err)
		c.scs = append(c.scs, sc)
		c.sources = append(c.sources, ScenarioSource{Name: "<scenario>", YAML: data})
	}
}

func parseScenario(data []byte) (*scenario.Scenario, error) {
	return handlers.Vocabulary().Parse("<scenario>", data)
}

// WithClock sets the clock mode (default manual; mockd uses real).
func WithClock(mode ClockMode) Option {
	return func(c *config) { c.mode, c.modeIsSet = mode, true }
}

// WithStartTime sets the clock's start time, overriding the scenario's.
func WithStartTime(t time.Time) Option { return func(c *config) { c.start = t } }

// WithDataFile persists the store in a file; an empty file is seeded from
// the scenario.
func WithDataFile(path string) Option { return func(c *config) { c.dataFile = path } }

// WithLogger sets the logger (default: discard). Secrets are never logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithSeed overrides the scenario's seed.
func WithSeed(seed int64) Option { return func(c *config) { c.seed = &seed } }

// WithWebhookTargets restricts webhook deliveries to these hosts, on top
// of the fixed rules and the scenario's webhooks.allowed_targets
// (docs/security.md#webhook-targets).
func WithWebhookTargets(hosts ...string) Option {
	return func(c *config) { c.targets = append(c.targets, hosts...) }
}

// Progress is a report of a long load while New runs.
type Progress = engine.Progress

// WithProgress calls fn with the progress of loading records while New
// runs (mockd's /_mock/health reports it).
func WithProgress(fn func(Progress)) Option { return func(c *config) { c.progress = fn } }

// WithoutListener makes Start serve without a socket: only Client()
// reaches the platform. WebSockets need a listener.
func WithoutListener() Option { return func(c *config) { c.noListen = true } }

// PlaceholderURL is URL() of a platform without a listener.
const PlaceholderURL = "http://mockplatform.invalid"

// Platform is one instance of the mock: an http.Handler.
type Platform struct {
	api     *handlers.API      // the families, on an engine of their own
	control func() *gin.Engine // the control plane ({base}/_mock), built on first use
	clock   *clock.Clock
	store   *store.Store
	faults  *faults.Set
	journal *journal.Journal
	cfg     config

	uploads sync.Mutex // one scenario upload parses at a time (control.go)

	mu     sync.Mutex // guards closed, srv; never held with worlds.mu
	srv    *httptest.Server
	closed bool
	// done is closed first by Close: the console's live streams end.
	done chan struct{}

	worlds *worldSet // the worlds this platform hosts; nil on a world

	inflight sync.WaitGroup
}

func quietGin() { handlers.QuietGin() }

// New returns a platform serving its scenario (the default unless an
// option gives another).
func New(opts ...Option) (*Platform, error) {
	cfg := config{mode: clock.ModeManual, worlds: defaultWorldLimits}
	for _, o := range opts {
		o(&cfg)
	}
	return openPlatform(cfg)
}

// openPlatform builds a platform from applied options (New, NewWorld).
func openPlatform(cfg config) (*Platform, error) {
	quietGin()
	if cfg.err == nil {
		cfg.err = cfg.mergeScenarios()
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.sc != nil && !cfg.scChecked {
		if err := ValidateScenario(cfg.sc); err != nil {
			return nil, err
		}
	}
	hc := engine.Config{Scenario: cfg.sc, DataFile: cfg.dataFile, Clock: cfg.mode,
		Start: cfg.start, Seed: cfg.seed, Logger: cfg.logger, WebhookTargets: cfg.targets, Progress: cfg.progress}
	var observe func(handlers.Exchange)
	if obs, tb, sc := testObserve, cfg.tb, cfg.sc; obs != nil {
		observe = func(ex handlers.Exchange) { obs(tb, sc, ex) }
	}
	api, err := handlers.Open(hc, observe)
	if err != nil {
		return nil, err
	}
	if rec := api.Store().Recovery(); rec != nil {
		// What a crash left unfinished in the data file (store.Recovery).
		for _, line := range rec.Lines() {
			cfg.logger.Warn("data file recovered", "file", cfg.dataFile, "detail", line)
		}
	}
	p := &Platform{api: api, clock: api.Clock(), store: api.Store(), faults: api.Faults(), journal: api.Journal(), cfg: cfg,
		done: make(chan struct{})}
	if cfg.mount == nil {
		p.worlds = newWorldSet(cfg.worlds, cfg.logger)
	}
	p.control = sync.OnceValue(p.newControl) // most in-process users never call it
	return p, nil
}

// Start serves a new platform on an httptest server (or in memory),
// fails the test on error and closes the platform when the test ends.
func Start(t TB, opts ...Option) *Platform {
	t.Helper()
	p, err := New(append(opts[:len(opts):len(opts)], func(c *config) { c.tb = t })...)
	if err != nil {
		t.Fatalf("mockplatform.Start: %v", err)
		return nil
	}
	if !p.cfg.noListen {
		p.mu.Lock()
		p.srv = httptest.NewServer(p)
		p.mu.Unlock()
	}
	t.Cleanup(func() {
		if fn := testCoverage; fn != nil {
			fn(t, p)
		}
		p.Close()
	})
	return p
}

// ServeHTTP serves the platform's API and control plane.
func (p *Platform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	growStack()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":"the platform is closed"}`)
		return
	}
	p.inflight.Add(1)
	p.mu.Unlock()
	defer p.inflight.Done()
	if p.serveWorld(w, r) {
		return
	}
	if isControl(r.URL.Path) {
		p.serveLogged(w, r, p.control())
		return
	}
	p.serveLogged(w, r, p.api)
}

// URL is the base address: WithPublicURL's, else the server's, else
// PlaceholderURL; a world's ends in /w/{id}.
func (p *Platform) URL() string {
	if m := p.cfg.mount; m != nil {
		return m.host.URL() + m.path()
	}
	if p.cfg.publicURL != "" {
		return p.cfg.publicURL
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		return p.srv.URL
	}
	return PlaceholderURL
}

// RuntimeURL is the runtime base address of a region (docs/api.md#addresses).
func (p *Platform) RuntimeURL(region string) string { return p.URL() + "/runtime/" + region }

// BuilderURL is the build and monitoring base address of a region.
func (p *Platform) BuilderURL(region string) string { return p.URL() + "/builder/" + region }

// MessagingURL is the messaging base address.
func (p *Platform) MessagingURL() string { return p.URL() + "/messaging" }

// Client returns an HTTP client that reaches the platform in memory.
func (p *Platform) Client() *http.Client {
	if m := p.cfg.mount; m != nil {
		return m.host.Client() // a world's paths go through its host
	}
	return &http.Client{Transport: &memTransport{h: p}}
}

// Close stops the platform: an Advance in flight stops at its next timer
// boundary, requests in flight finish, and the store closes. It is idempotent.
func (p *Platform) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.done)
	srv := p.srv
	p.mu.Unlock()
	p.api.Interrupt()
	if srv != nil {
		srv.Close()
	}
	p.inflight.Wait()
	p.closeWorlds()
	p.api.Close()
}

// Now is the platform's current (virtual) time.
func (p *Platform) Now() time.Time { return p.clock.Now() }

// Advance moves the clock forward by d and runs, in due-time order, all
// work that falls due before it returns (docs/time.md).
func (p *Platform) Advance(d time.Duration) time.Time {
	now, _ := p.AdvanceContext(context.Background(), d) // fails only on a closed platform
	return now
}

// AdvanceContext is Advance bounded by ctx: once ctx is done it stops
// before the next timer, with the clock at the last timer fired, and
// returns an error wrapping ctx's.
func (p *Platform) AdvanceContext(ctx context.Context, d time.Duration) (time.Time, error) {
	return p.clock.Advance(ctx, d)
}

// Reset restores the scenario's initial state: data, clock, faults, journal.
func (p *Platform) Reset() error { return p.api.Reset() }

// LoadScenario replaces the scenario, then resets; a layer adds to the
// starting scenario (docs/scenarios.md#layers).
func (p *Platform) LoadScenario(sc *Scenario) error {
	if sc == nil {
		return errors.New("mockplatform: nil scenario")
	}
	if sc.IsLayer() { // on top of the scenario the platform started with
		var err error
		if sc, err = handlers.Vocabulary().Compose(p.cfg.sc, sc); err != nil {
			return err
		}
	}
	if err := ValidateScenario(sc); err != nil {
		return err
	}
	return p.api.LoadScenario(sc)
}

// Scenario returns the scenario in force (read-only).
func (p *Platform) Scenario() *Scenario { return p.api.Scenario() }

// Requests returns the journal entries that match f, oldest first.
func (p *Platform) Requests(f RequestFilter) []Request { return p.journal.List(f) }

// AddFault adds a fault rule and returns it with its id.
func (p *Platform) AddFault(r Fault) (Fault, error) {
	if err := handlers.Vocabulary().Faults.CheckPresets([]Fault{r}); err != nil {
		return Fault{}, fmt.Errorf("faults: action.preset: %w", err)
	}
	return p.faults.Add(r)
}

// RemoveFault removes a fault rule by id and reports whether it existed.
func (p *Platform) RemoveFault(id string) bool { return p.faults.Remove(id) }

// ClearFaults removes every fault rule.
func (p *Platform) ClearFaults() { p.faults.Clear() }

// Faults lists the fault rules with their counters.
func (p *Platform) Faults() []FaultStatus { return p.faults.List() }

// Store gives tests direct access to the platform's data (read it).
func (p *Platform) Store() *store.Store { return p.store }

// Conversation reads a conversation record by id, in any region.
func (p *Platform) Conversation(id string) (*store.Conversation, error) {
	for _, region := range scenario.Regions {
		c, err := p.store.GetConversation(region, id)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	return nil, store.ErrNotFound
}
