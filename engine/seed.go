package engine

import (
	"time"

	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/seeding"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Seed writes a scenario's seeded records (conversations, handoff states)
// into an empty store. now is the clock's start, the "now" of in-progress
// seeds.
func Seed(st *store.Store, sc *scenario.Scenario, now time.Time) error { return seed(st, sc, now, nil) }

// seed is Seed with a progress report of the generated records (nil:
// none).
func seed(st *store.Store, sc *scenario.Scenario, now time.Time, prog *seeding.Reporter) error {
	if err := seeding.Conversations(st, sc, now, prog); err != nil {
		return err
	}
	// The families' seeded records: agents with their telephony, alert
	// rules and webhook endpoints, voices and audio caches. Messaging
	// sessions are live state and outbound calls start from the API: they
	// seed nothing.
	for _, seed := range []func(*store.Store, *scenario.Scenario, time.Time) error{seedAgents, seedAlerts, audio.Seed} {
		if err := seed(st, sc, now); err != nil {
			return err
		}
	}
	return nil
}

// Progress is a report of a long load: generating or reading records.
type Progress = seeding.Progress
