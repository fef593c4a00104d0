package engine

// The wiring of one engine: a store, a virtual clock and a fault set,
// loaded with a scenario.

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine/seeding"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Config is how OpenEngine wires an engine; zero but Vocabulary is the
// default scenario in memory on the manual clock.
type Config struct {
	// Vocabulary is what the scenario may name (required).
	Vocabulary *scenario.Vocabulary
	// Scenario is the scenario to serve (nil: the default scenario).
	Scenario *scenario.Scenario
	// DataFile persists the store ("": in memory); an empty file is seeded.
	DataFile string
	// Clock is the clock mode ("": manual).
	Clock clock.Mode
	// Start overrides the scenario's clock start.
	Start time.Time
	// Seed overrides the scenario's seed.
	Seed *int64
	// Logger receives the instance's logs (nil: discarded).
	Logger *slog.Logger
	// WebhookTargets is an allow-list of webhook targets on top of the
	// scenario's (docs/security.md#webhook-targets).
	WebhookTargets []string
	// Progress sees the progress of generating and loading records.
	Progress func(Progress)
	// Recorder receives state machine transitions and clock runs (nil:
	// coverage.Discard()).
	Recorder coverage.Recorder
}

// defaults are a vocabulary's default scenario and its initial data,
// made once per process: parsing is costly and a Snapshot is immutable.
type defaults struct {
	once sync.Once
	sc   *scenario.Scenario
	snap *store.Snapshot
	err  error
	// idx is snap's agents runtime index, made on first restore.
	idxOnce sync.Once
	idx     *runtimeIndex
}

var defaultsByVocabulary sync.Map

// *scenario.Vocabulary → *defaults

func defaultsOf(voc *scenario.Vocabulary) *defaults {
	v, _ := defaultsByVocabulary.LoadOrStore(voc, &defaults{})
	d := v.(*defaults)
	d.once.Do(func() {
		d.sc = voc.Default()
		d.snap, d.err = seedSnapshot(d.sc, clock.DefaultStart, nil)
	})
	return d
}

// DefaultScenario is the embedded default scenario in a vocabulary, parsed
// once per process and shared read-only.
func DefaultScenario(voc *scenario.Vocabulary) *scenario.Scenario { return defaultsOf(voc).sc }

// OpenEngine wires an engine and loads its scenario; Close releases it.
func OpenEngine(cfg Config) (*Engine, error) {
	if cfg.Vocabulary == nil {
		return nil, errors.New("mockplatform: no vocabulary")
	}
	if cfg.Scenario == nil {
		cfg.Scenario = DefaultScenario(cfg.Vocabulary)
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
		prog := seeding.NewReporter(cfg.Logger, cfg.Progress, 0)
		st, err = store.OpenProgress(cfg.DataFile, func(done, total int) {
			prog.SetTotal(total)
			prog.Report("reading the data file", done)
		})
	} else {
		st, err = store.Open("")
	}
	if err != nil {
		return nil, fmt.Errorf("mockplatform: open store: %w", err)
	}
	return newEngine(cfg, st, &targets), nil
}

// Load loads the Config's scenario, keeping a data file's data. Call it
// once the edge has subscribed to resets.
func (e *Engine) Load() error { return e.loadScenario(e.cfg.Scenario, e.cfg.DataFile != "") }

// OnReset subscribes fn to resets and loads; it runs at their end under
// the engine's load lock. Subscribe before Load.
func (e *Engine) OnReset(fn func(sc *scenario.Scenario)) { e.onReset = append(e.onReset, fn) }

// Store is the instance's store.
func (e *Engine) Store() *store.Store { return e.store }

// Clock is the instance's clock.
func (e *Engine) Clock() *clock.Clock { return e.clock }

// Faults is the instance's fault set.
func (e *Engine) Faults() *faults.Set { return e.faults }

// Scenario is the scenario in force, as loaded (without the seed
// override).
func (e *Engine) Scenario() *scenario.Scenario {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return e.sc
}

// Reset restores the scenario's initial state: data, clock, faults,
// timeline and in-memory state, then the edge's (OnReset).
func (e *Engine) Reset() error {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	return e.resetLocked()
}

// LoadScenario replaces the scenario, then resets to its initial state.
func (e *Engine) LoadScenario(sc *scenario.Scenario) error {
	if sc == nil {
		return errors.New("mockplatform: nil scenario")
	}
	return e.loadScenario(sc, false)
}

// resetLocked restores the initial state. e.loadMu must be held.
func (e *Engine) resetLocked() error {
	if err := e.store.Restore(e.snap); err != nil {
		return fmt.Errorf("mockplatform: reset store: %w", err)
	}
	e.clock.Reset(startOf(e.cfg, e.sc))
	eff := e.effective(e.sc)
	if err := e.resetTimelineLocked(eff, eff.Seed); err != nil {
		return fmt.Errorf("mockplatform: reset timeline and faults: %w", err)
	}
	e.SetScenario(eff)
	e.resetFamilies(true)
	return nil
}

// loadScenario seeds sc and resets; with keep, a persistent store's data is
// kept.
func (e *Engine) loadScenario(sc *scenario.Scenario, keep bool) error {
	if err := e.checkSeededTargets(sc); err != nil {
		return err
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	eff := e.effective(sc)
	var snap *store.Snapshot
	var err error
	if d := defaultsOf(e.cfg.Vocabulary); sc == d.sc && eff == sc && e.cfg.Start.IsZero() && sc.Clock.Start.IsZero() &&
		e.clock.Mode() == clock.ModeManual {
		snap, err = d.snap, d.err
	} else {
		snap, err = seedSnapshot(eff, e.seedTime(sc), seeding.NewReporter(e.Log, e.cfg.Progress, seeding.Generated(eff)))
	}
	if err != nil {
		return err
	}
	e.sc, e.snap = sc, snap
	if keep {
		if n, err := e.store.Len(); err == nil && n > 0 {
			e.clock.Reset(startOf(e.cfg, sc))
			if err := e.resetTimelineLocked(eff, eff.Seed); err != nil {
				return err
			}
			// Reopened data: resume IDs from the seed mixed with the record count so
			// creates do not collide with earlier IDs.
			resumed := *eff
			resumed.Seed = eff.Seed ^ int64(n)*0x5851f42d4c957f2d
			e.SetScenario(&resumed)
			e.resetFamilies(false)
			return nil
		}
	}
	return e.resetLocked()
}

// seedSnapshot seeds a scratch store from sc and returns its data.
func seedSnapshot(sc *scenario.Scenario, start time.Time, prog *seeding.Reporter) (*store.Snapshot, error) {
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

// seedTime is the "now" of a scenario's seeds: the clock's start.
func (e *Engine) seedTime(sc *scenario.Scenario) time.Time {
	if start := startOf(e.cfg, sc); !start.IsZero() {
		return start
	}
	if e.clock.Mode() == clock.ModeManual {
		return clock.DefaultStart
	}
	return e.clock.Now()
}

func (e *Engine) effective(sc *scenario.Scenario) *scenario.Scenario {
	if e.cfg.Seed == nil || sc.Seed == *e.cfg.Seed {
		return sc
	}
	cp := *sc
	cp.Seed = *e.cfg.Seed
	return &cp
}

// startOf is the clock start: the Config's, the scenario's, or the
// clock's default.
func startOf(cfg Config, sc *scenario.Scenario) time.Time {
	if !cfg.Start.IsZero() {
		return cfg.Start
	}
	return sc.Clock.Start
}
