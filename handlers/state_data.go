package handlers

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: conversations, concurrency, handoff, number reservation, external events (issue 3).

// dataState is the families' state that is not stored data.
type dataState struct{}

// resetData re-arms the families' timers and drops live state after a reset.
func (a *API) resetData() {}

// presetData returns the families' named failure mode, nil if none.
func (a *API) presetData(name string) presetFunc { return nil }

// seedData writes the families' seeded records of a scenario.
func seedData(st *store.Store, sc *scenario.Scenario, now time.Time) error { return nil }
