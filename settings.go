package mockplatform

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/handlers"
)

// One option list serves every way of running the mock: New and Start in
// process, a world of a running platform (NewWorld), and a mockd
// container or a world of one (package mockdcontainer reads the list with
// SettingsOf and passes it on as mockd's flags or a world's settings).

// ScenarioSource is the YAML of a scenario option, for runners that pass
// it on: Name is the file name (WithScenarioFile) or "<scenario>"
// (WithScenarioYAML).
type ScenarioSource struct {
	Name string
	YAML []byte
}

// Settings is what a list of options asks for. New applies options itself;
// other runners of the mock read them here.
type Settings struct {
	// Scenarios are the scenario options' sources in order (several are
	// merged). Nil: the default scenario (or, for a world, its host's).
	Scenarios []ScenarioSource
	// Parsed is set when a scenario was given parsed (WithScenario): it
	// has no source to pass on.
	Parsed bool
	// Clock is the clock mode, "" when no option set it.
	Clock ClockMode
	// Start is WithStartTime's (zero: none).
	Start time.Time
	// Seed is WithSeed's (nil: none).
	Seed *int64
	// DataFile is WithDataFile's.
	DataFile string
	// Logger is WithLogger's.
	Logger *slog.Logger
	// PublicURL is WithPublicURL's.
	PublicURL string
	// NoListener is set by WithoutListener.
	NoListener bool
	// MaxWorlds and WorldIdleTimeout are WithMaxWorlds's and
	// WithWorldIdleTimeout's (nil: not given).
	MaxWorlds        *int
	WorldIdleTimeout *time.Duration
	// Extensions are WithExtension's values, in order.
	Extensions []any
}

// SettingsOf applies opts and returns what they ask for, with the first
// errors they met (an unreadable file, a scenario that does not parse).
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

// WithExtension carries a setting of another runner of the mock (package
// mockdcontainer's WithImage, for example) in an option list that is also
// given to New, which ignores it. See SettingsOf.
func WithExtension(v any) Option {
	return func(c *config) { c.extensions = append(c.extensions, v) }
}

// WithPublicURL sets the address clients use to reach the platform (as
// URL returns it, and absolute addresses in control-plane answers), for a
// platform served behind a proxy or a published container port.
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

// mergeScenarios merges the scenario options into c.sc: on top of c.sc
// (a world's inherited scenario; nil: the built-in one) when they are all
// layers (scenario.Compose). A new scenario is checked again.
func (c *config) mergeScenarios() error {
	if len(c.scs) == 0 {
		return nil
	}
	sc, err := handlers.Vocabulary().Compose(c.sc, c.scs...)
	c.sc, c.scChecked = sc, false
	return err
}

// Err is the first failure of a control method that has no error result.
// An in-process Platform's methods do not fail, so it is always nil; a
// remote Mock (package mockdcontainer) keeps its control plane's first
// failure here.
func (p *Platform) Err() error { return nil }
