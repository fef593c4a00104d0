package handlers

// The wiring of one platform instance, shared by mockplatform.New and this
// package's test harness: a store, a virtual clock, a fault set, a request
// journal and the API over them, loaded with a scenario; Reset and
// LoadScenario bring it back to a scenario's initial state.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Config is how Open wires an instance. The zero Config is the default
// scenario in memory on the manual clock.
type Config struct {
	// Scenario is the scenario to serve (nil: the default scenario).
	Scenario *scenario.Scenario
	// DataFile persists the store (buntdb's append-only file; "": in
	// memory). Data already in it is kept; an empty file is seeded.
	DataFile string
	// Clock is the clock mode ("": manual).
	Clock clock.Mode
	// Start overrides the scenario's clock start.
	Start time.Time
	// Seed overrides the scenario's seed.
	Seed *int64
	// Logger receives the instance's logs (nil: discarded).
	Logger *slog.Logger
	// Observe, when set, sees every exchange the API serves (observe.go);
	// the module's tests check them against the OpenAPI document.
	Observe func(Exchange)
	// WebhookTargets, when not empty, is an allow-list of webhook targets
	// (scenario.HostList syntax) on top of the scenario's
	// webhooks.allowed_targets (docs/security.md#webhook-targets).
	WebhookTargets []string
	// Progress, when set, sees the progress of generating and loading
	// records while Open runs (progress.go); loads of over 100k records
	// also log it at info level.
	Progress func(Progress)
}

// DefaultScenario is the embedded default scenario, parsed once per
// process and shared read-only by every instance that names no other one
// (parsing it took about two thirds of an instance's start).
var DefaultScenario = sync.OnceValue(func() *scenario.Scenario { return Vocabulary().Default() })

// defaultSnapshot is the default scenario's initial data on the manual
// clock, seeded once per process (a Snapshot is immutable and restores
// into any store).
var defaultSnapshot = sync.OnceValues(func() (*store.Snapshot, error) {
	sc := DefaultScenario()
	return seedSnapshot(sc, clock.DefaultStart, nil)
})

// Open wires an instance and loads its scenario. Close releases it all.
func Open(cfg Config) (*API, error) { return openTable(cfg, defaultTable()) }

// openTable is Open serving the family table tab.
func openTable(cfg Config, tab *table) (*API, error) {
	if cfg.Scenario == nil {
		cfg.Scenario = DefaultScenario()
	}
	if cfg.Clock == "" {
		cfg.Clock = clock.ModeManual
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var targets scenario.HostList
	for _, h := range cfg.WebhookTargets {
		if err := targets.Add(h); err != nil {
			return nil, fmt.Errorf("mockplatform: webhook target %q: %w", h, err)
		}
	}
	var st *store.Store
	var err error
	if cfg.DataFile != "" {
		cfg.Logger.Info("reading the data file", "file", cfg.DataFile)
		prog := newProgress(cfg.Logger, cfg.Progress, 0)
		st, err = store.OpenProgress(cfg.DataFile, func(done, total int) {
			prog.total = total
			prog.report("reading the data file", done)
		})
	} else {
		st, err = store.Open("")
	}
	if err != nil {
		return nil, fmt.Errorf("mockplatform: open store: %w", err)
	}
	a := newAPI(deps{Store: st, Clock: clock.New(cfg.Clock, startOf(cfg, cfg.Scenario)), Faults: faults.NewSet(tab.faults, 1),
		Journal: NewJournal(0, 0), Logger: cfg.Logger, Observe: cfg.Observe}, tab)
	a.cfg = cfg
	a.webhooks.allow = &targets
	if err := a.loadScenario(cfg.Scenario, cfg.DataFile != ""); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Store is the instance's store.
func (a *API) Store() *store.Store { return a.store }

// Clock is the instance's clock.
func (a *API) Clock() *clock.Clock { return a.clock }

// Faults is the instance's fault set.
func (a *API) Faults() *faults.Set { return a.faults }

// Journal is the instance's request journal.
func (a *API) Journal() *Journal { return a.journal }

// Scenario is the scenario in force, as loaded (read-only; the seed
// override of Config is not applied to it).
func (a *API) Scenario() *scenario.Scenario {
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	return a.sc
}

// Reset restores the scenario's initial state: data, clock, faults,
// journal and the families' in-memory state.
func (a *API) Reset() error {
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	return a.resetLocked()
}

// LoadScenario replaces the scenario, then resets to its initial state.
func (a *API) LoadScenario(sc *scenario.Scenario) error {
	if sc == nil {
		return errors.New("mockplatform: nil scenario")
	}
	return a.loadScenario(sc, false)
}

// resetLocked restores the initial state. a.loadMu must be held.
func (a *API) resetLocked() error {
	if err := a.store.Restore(a.snap); err != nil {
		return fmt.Errorf("mockplatform: reset store: %w", err)
	}
	a.clock.Reset(startOf(a.cfg, a.sc))
	eff := a.effective(a.sc)
	if err := a.faults.Replace(a.sc.Faults, eff.Seed); err != nil {
		return fmt.Errorf("mockplatform: reset faults: %w", err)
	}
	a.journal.Reset(a.sc.Limits.JournalSize, a.sc.Limits.JournalBodyBytes)
	a.SetScenario(eff)
	a.resetFamilies()
	return nil
}

// loadScenario seeds the initial data of sc and resets. With keep, data
// already in a persistent store is kept (only an empty store is seeded).
func (a *API) loadScenario(sc *scenario.Scenario, keep bool) error {
	if err := a.checkSeededTargets(sc); err != nil {
		return err
	}
	a.loadMu.Lock()
	defer a.loadMu.Unlock()
	eff := a.effective(sc)
	var snap *store.Snapshot
	var err error
	if sc == DefaultScenario() && eff == sc && a.cfg.Start.IsZero() && sc.Clock.Start.IsZero() && a.clock.Mode() == clock.ModeManual {
		snap, err = defaultSnapshot()
	} else {
		snap, err = seedSnapshot(eff, a.seedTime(sc), newProgress(a.log, a.cfg.Progress, generated(eff)))
	}
	if err != nil {
		return err
	}
	a.sc, a.snap = sc, snap
	if keep {
		if n, err := a.store.Len(); err == nil && n > 0 {
			a.clock.Reset(startOf(a.cfg, sc))
			if err := a.faults.Replace(sc.Faults, eff.Seed); err != nil {
				return err
			}
			a.journal.Reset(sc.Limits.JournalSize, sc.Limits.JournalBodyBytes)
			// Reopened data: the ID generator must not replay the IDs it
			// issued before the restart (every create would collide), so
			// it resumes from the seed mixed with the record count.
			resumed := *eff
			resumed.Seed = eff.Seed ^ int64(n)*0x5851f42d4c957f2d
			a.SetScenario(&resumed)
			a.resetFamilies()
			return nil
		}
	}
	return a.resetLocked()
}

// seedSnapshot seeds a scratch store from sc with the clock at start and
// returns its data.
func seedSnapshot(sc *scenario.Scenario, start time.Time, prog *progress) (*store.Snapshot, error) {
	seedStore, err := store.Open("")
	if err != nil {
		return nil, err
	}
	defer seedStore.Close()
	if err := seed(seedStore, sc, start, prog); err != nil {
		return nil, fmt.Errorf("mockplatform: seed scenario: %w", err)
	}
	return seedStore.Snapshot()
}

// seedTime is the "now" of a scenario's seeds: the clock's start (the
// manual clock's default start, or the wall time of a real clock, when
// neither the Config nor the scenario gives one).
func (a *API) seedTime(sc *scenario.Scenario) time.Time {
	if start := startOf(a.cfg, sc); !start.IsZero() {
		return start
	}
	if a.clock.Mode() == clock.ModeManual {
		return clock.DefaultStart
	}
	return a.clock.Now()
}

// effective applies the seed override of the Config to a scenario.
func (a *API) effective(sc *scenario.Scenario) *scenario.Scenario {
	if a.cfg.Seed == nil || sc.Seed == *a.cfg.Seed {
		return sc
	}
	cp := *sc
	cp.Seed = *a.cfg.Seed
	return &cp
}

// startOf is the clock start: the Config's, else the scenario's, else the
// clock's default (manual: 2026-01-01; real: wall time).
func startOf(cfg Config, sc *scenario.Scenario) time.Time {
	if !cfg.Start.IsZero() {
		return cfg.Start
	}
	return sc.Clock.Start
}
