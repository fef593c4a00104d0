package mockplatform

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/handlers"
)

// One option list serves every runner of the mock: New, NewWorld, and
// mockdcontainer (through SettingsOf).

// ScenarioSource is the YAML of a scenario option; Name is the file name
// or "<scenario>".
type ScenarioSource struct {
	Name string
	YAML []byte
}

// Settings is what a list of options asks for. New applies options itself;
// other runners of the mock read them here.
type Settings struct {
	// Scenarios are the scenario options' sources, merged in order.
	Scenarios []ScenarioSource
	// Parsed is set by WithScenario: it has no source to pass on.
	Parsed           bool
	Clock            ClockMode
	Start            time.Time
	Seed             *int64
	DataFile         string
	Logger           *slog.Logger
	PublicURL        string
	NoListener       bool
	MaxWorlds        *int
	WorldIdleTimeout *time.Duration
	Extensions       []any
}

// SettingsOf applies opts and returns what they ask for, with their errors.
func SettingsOf(opts ...Option) (Settings, error) {
	cfg := config{worlds: worldLimits{max: -1, idle: -1}} // -1: not given
	for _, o := range opts {
		o(&cfg)
	}
	s := Settings{
		Clock: cfg.mode, Start: cfg.start, Seed: cfg.seed, DataFile: cfg.dataFile,
		Logger: cfg.logger, PublicURL: cfg.publicURL, NoListener: cfg.noListen,
		Extensions: cfg.extensions,
	}
	if cfg.worlds.max >= 0 {
		s.MaxWorlds = &cfg.worlds.max
	}
	if cfg.worlds.idle >= 0 {
		s.WorldIdleTimeout = &cfg.worlds.idle
	}
	for _, src := range cfg.sources {
		if src.YAML == nil {
			s.Parsed = true
			continue
		}
		s.Scenarios = append(s.Scenarios, src)
	}
	return s, cfg.err
}

// WithExtension carries another runner's setting (mockdcontainer's
// WithImage) in an option list; New ignores it.
func WithExtension(v any) Option {
	return func(c *config) { c.extensions = append(c.extensions, v) }
}

// WithPublicURL sets the address clients use to reach the platform, for
// one behind a proxy or a published container port.
func WithPublicURL(u string) Option {
	return func(c *config) {
		u = strings.TrimRight(u, "/")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			c.err = errors.Join(c.err, errors.New("mockplatform: WithPublicURL: want an http:// or https:// address, got "+u))
			return
		}
		c.publicURL = u
	}
}

// mergeScenarios merges the scenario options into c.sc (scenario.Compose).
func (c *config) mergeScenarios() error {
	if len(c.scs) == 0 {
		return nil
	}
	sc, err := handlers.Vocabulary().Compose(c.sc, c.scs...)
	c.sc, c.scChecked = sc, false
	return err
}

// Err is the first failure of a control method without an error result:
// always nil in process.
func (p *Platform) Err() error { return nil }
