package engine

import (
	"time"

	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/seeding"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Seed writes a scenario's seeded records into an empty store; now is the
// clock's start.
func Seed(st *store.Store, sc *scenario.Scenario, now time.Time) error { return seed(st, sc, now, nil) }

// seed is Seed with a progress report (nil: none).
func seed(st *store.Store, sc *scenario.Scenario, now time.Time, prog *seeding.Reporter) error {
	if err := seeding.Conversations(st, sc, now, prog); err != nil {
		return err
	}
	// The families' seeded records; messaging and outbound seed nothing.
	for _, seed := range []func(*store.Store, *scenario.Scenario, time.Time) error{seedAgents, seedAlerts, audio.Seed} {
		if err := seed(st, sc, now); err != nil {
			return err
		}
	}
	return nil
}

// Progress is a report of a long load: generating or reading records.
type Progress = seeding.Progress
