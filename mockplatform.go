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
// Every instance is isolated: its own virtual clock, store, fault rules and
// request journal; many run in parallel in one test binary. The one
// process-wide effect is gin's mode: New sets gin to release mode once
// (gin's debug mode prints every route) unless GIN_MODE is set.
package mockplatform

import (
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
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/handlers"
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
	Request = handlers.Entry
	// RequestFilter selects journal entries.
	RequestFilter = handlers.Filter
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
	err       error
	mode      clock.Mode
	start     time.Time
	dataFile  string
	logger    *slog.Logger
	seed      *int64
	noListen  bool
	modeIsSet bool
}

// WithScenario uses a parsed scenario instead of the default one.
func WithScenario(sc *Scenario) Option { return func(c *config) { c.sc = sc } }

// WithScenarioFile loads the scenario from a YAML file.
func WithScenarioFile(path string) Option {
	return func(c *config) {
		sc, err := scenario.Load(path)
		c.sc, c.err = sc, errors.Join(c.err, err)
	}
}

// WithScenarioYAML parses the scenario from YAML bytes.
func WithScenarioYAML(data []byte) Option {
	return func(c *config) {
		sc, err := parseScenario(data)
		c.sc, c.err = sc, errors.Join(c.err, err)
	}
}

func parseScenario(data []byte) (*scenario.Scenario, error) {
	return scenario.Parse("<scenario>", data)
}

// WithClock sets the clock mode (default manual in New and Start; mockd
// uses real).
func WithClock(mode ClockMode) Option {
	return func(c *config) { c.mode, c.modeIsSet = mode, true }
}

// WithStartTime sets the clock's start time, overriding the scenario's.
func WithStartTime(t time.Time) Option { return func(c *config) { c.start = t } }

// WithDataFile persists the store in a file (buntdb's append-only file).
// Data in an existing file is kept; an empty file is seeded from the scenario.
func WithDataFile(path string) Option { return func(c *config) { c.dataFile = path } }

// WithLogger sets the logger (default: discard). Secrets are never logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithSeed overrides the scenario's seed.
func WithSeed(seed int64) Option { return func(c *config) { c.seed = &seed } }

// WithoutListener makes Start serve without a socket: Client() reaches the
// platform in memory and URL() is a placeholder address that only Client()
// can reach. WebSockets need a listener.
func WithoutListener() Option { return func(c *config) { c.noListen = true } }

// PlaceholderURL is URL() of a platform without a listener.
const PlaceholderURL = "http://mockplatform.invalid"

// Platform is one instance of the mock: an http.Handler.
type Platform struct {
	api     *handlers.API // the families, on an engine of their own
	control *gin.Engine   // the control plane ({base}/_mock)
	clock   *clock.Clock
	store   *store.Store
	faults  *faults.Set
	journal *handlers.Journal
	log     *slog.Logger
	cfg     config

	mu     sync.Mutex // guards sc, snap, closed, srv
	sc     *scenario.Scenario
	snap   *store.Snapshot
	srv    *httptest.Server
	closed bool

	inflight sync.WaitGroup
}

var ginModeOnce sync.Once

// defaultScenario is the embedded default scenario, parsed once per process
// and shared read-only by every instance that does not name another one
// (parsing it took about two thirds of New's time). Nothing in the platform
// writes to a scenario; Scenario() documents it as read-only.
var defaultScenario = sync.OnceValue(scenario.Default)

// quietGin sets gin's process-wide mode to release once, unless GIN_MODE
// is set: gin's debug mode prints every route into users' test output.
func quietGin() {
	ginModeOnce.Do(func() {
		if os.Getenv(gin.EnvGinMode) == "" {
			gin.SetMode(gin.ReleaseMode)
		}
	})
}

// New returns a platform serving its scenario (the default one unless an
// option gives another).
func New(opts ...Option) (*Platform, error) {
	quietGin()
	cfg := config{mode: clock.ModeManual}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if cfg.sc == nil {
		cfg.sc = defaultScenario()
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, err := store.Open(cfg.dataFile)
	if err != nil {
		return nil, fmt.Errorf("mockplatform: open store: %w", err)
	}
	p := &Platform{
		store:   st,
		faults:  faults.NewSet(1),
		journal: handlers.NewJournal(0, 0),
		log:     cfg.logger,
		cfg:     cfg,
	}
	p.clock = clock.New(cfg.mode, p.startOf(cfg.sc))
	p.api = handlers.New(handlers.Deps{Store: st, Clock: p.clock, Faults: p.faults, Journal: p.journal, Logger: cfg.logger})
	p.control = p.newControl()
	keep := cfg.dataFile != ""
	if err := p.loadScenario(cfg.sc, keep); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Start serves a new platform on an httptest server (or in memory, with
// WithoutListener), fails the test on error and closes the platform when
// the test ends, as miniredis's RunT does.
func Start(t TB, opts ...Option) *Platform {
	t.Helper()
	p, err := New(opts...)
	if err != nil {
		t.Fatalf("mockplatform.Start: %v", err)
		return nil
	}
	if !p.cfg.noListen {
		p.mu.Lock()
		p.srv = httptest.NewServer(p)
		p.mu.Unlock()
	}
	t.Cleanup(p.Close)
	return p
}

// ServeHTTP serves the platform's API and control plane.
func (p *Platform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if isControl(r.URL.Path) {
		p.control.ServeHTTP(w, r)
		return
	}
	p.api.ServeHTTP(w, r)
}

// URL is the base address: the httptest server's, or PlaceholderURL.
func (p *Platform) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		return p.srv.URL
	}
	return PlaceholderURL
}

// RuntimeURL is the runtime and data base address of a region (us-1,
// uk-1, euw-1), CONTRACT section 1.
func (p *Platform) RuntimeURL(region string) string { return p.URL() + "/runtime/" + region }

// BuilderURL is the build and monitoring base address of a region (us, uk,
// eu).
func (p *Platform) BuilderURL(region string) string { return p.URL() + "/builder/" + region }

// MessagingURL is the messaging base address.
func (p *Platform) MessagingURL() string { return p.URL() + "/messaging" }

// Client returns an HTTP client that reaches the platform in memory, with
// no socket, whatever host the request names.
func (p *Platform) Client() *http.Client {
	return &http.Client{Transport: &memTransport{h: p}}
}

// Close stops the platform: it waits for requests in flight, stops every
// goroutine and closes the store. It is idempotent.
func (p *Platform) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	srv := p.srv
	p.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
	p.inflight.Wait()
	p.api.Close()
	p.clock.Close()
	if err := p.store.Close(); err != nil {
		p.log.Error("close store", "err", err)
	}
}

// Now is the platform's current (virtual) time.
func (p *Platform) Now() time.Time { return p.clock.Now() }

// Advance moves the clock forward by d and runs all work that falls due
// (evaluations, call progress, expiries, retention) before it returns.
func (p *Platform) Advance(d time.Duration) time.Time { return p.clock.Advance(d) }

// Reset restores the scenario's initial state: data, clock, faults, journal.
func (p *Platform) Reset() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resetLocked()
}

// resetLocked restores the initial state. p.mu must be held.
func (p *Platform) resetLocked() error {
	if err := p.store.Restore(p.snap); err != nil {
		return fmt.Errorf("mockplatform: reset store: %w", err)
	}
	p.clock.Reset(p.startOf(p.sc))
	seed := p.seedOf(p.sc)
	if err := p.faults.Replace(p.sc.Faults, seed); err != nil {
		return fmt.Errorf("mockplatform: reset faults: %w", err)
	}
	p.journal.Reset(p.sc.Limits.JournalSize, p.sc.Limits.JournalBodyBytes)
	p.api.SetScenario(p.effective(p.sc))
	p.api.Reset()
	return nil
}

// LoadScenario replaces the scenario, then resets to its initial state.
func (p *Platform) LoadScenario(sc *Scenario) error {
	if sc == nil {
		return errors.New("mockplatform: nil scenario")
	}
	return p.loadScenario(sc, false)
}

// loadScenario seeds the store from sc and resets. With keep, data already
// in a persistent store is kept (only an empty store is seeded).
func (p *Platform) loadScenario(sc *scenario.Scenario, keep bool) error {
	if err := ValidateScenario(sc); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	eff := p.effective(sc)
	var snap *store.Snapshot
	var err error
	if sc == defaultScenario() && eff == sc && p.cfg.start.IsZero() {
		snap, err = defaultSnapshot()
	} else {
		snap, err = seedSnapshot(eff, p.startOf(sc))
	}
	if err != nil {
		return err
	}
	p.sc, p.snap = sc, snap
	if keep {
		if n, err := p.store.Len(); err == nil && n > 0 {
			p.clock.Reset(p.startOf(sc))
			if err := p.faults.Replace(sc.Faults, p.seedOf(sc)); err != nil {
				return err
			}
			p.journal.Reset(sc.Limits.JournalSize, sc.Limits.JournalBodyBytes)
			// Reopened data: the ID generator must not replay the IDs it
			// issued before the restart (every create would collide), so
			// it resumes from the seed mixed with the record count.
			resumed := *eff
			resumed.Seed = eff.Seed ^ int64(n)*0x5851f42d4c957f2d
			p.api.SetScenario(&resumed)
			p.api.Reset()
			return nil
		}
	}
	return p.resetLocked()
}

// seedSnapshot seeds a scratch store from sc with the clock at start and
// returns its data.
func seedSnapshot(sc *scenario.Scenario, start time.Time) (*store.Snapshot, error) {
	seedStore, err := store.Open("")
	if err != nil {
		return nil, err
	}
	defer seedStore.Close()
	if err := handlers.Seed(seedStore, sc, start); err != nil {
		return nil, fmt.Errorf("mockplatform: seed scenario: %w", err)
	}
	return seedStore.Snapshot()
}

// defaultSnapshot is the default scenario's initial data, seeded once per
// process (a Snapshot is immutable and restores into any store): seeding
// opened a second buntdb database on every New.
var defaultSnapshot = sync.OnceValues(func() (*store.Snapshot, error) {
	sc := defaultScenario()
	return seedSnapshot(sc, sc.Clock.Start)
})

// Scenario returns the scenario in force (read-only).
func (p *Platform) Scenario() *Scenario {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sc
}

// effective applies construction overrides (seed) to a scenario.
func (p *Platform) effective(sc *scenario.Scenario) *scenario.Scenario {
	if p.cfg.seed == nil || sc.Seed == *p.cfg.seed {
		return sc
	}
	cp := *sc
	cp.Seed = *p.cfg.seed
	return &cp
}

func (p *Platform) seedOf(sc *scenario.Scenario) int64 { return p.effective(sc).Seed }

// startOf is the clock start: the option's, else the scenario's, else the
// clock's default (manual: 2026-01-01; real: wall time).
func (p *Platform) startOf(sc *scenario.Scenario) time.Time {
	if !p.cfg.start.IsZero() {
		return p.cfg.start
	}
	return sc.Clock.Start
}

// Requests returns the journal entries that match f, oldest first.
func (p *Platform) Requests(f RequestFilter) []Request { return p.journal.List(f) }

// AddFault adds a fault rule and returns it with its id.
func (p *Platform) AddFault(r Fault) (Fault, error) {
	if err := faults.CheckPresets([]Fault{r}); err != nil {
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

// Store gives tests direct access to the platform's data (read it; writing
// behind the API's back is at your own risk).
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
