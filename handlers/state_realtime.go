package handlers

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: messaging sessions and outbound calling (issue 5).

// realtimeState is the families' state that is not stored data.
type realtimeState struct{}

// resetRealtime re-arms the families' timers and drops live state after a reset.
func (a *API) resetRealtime() {}

// presetRealtime returns the families' named failure mode, nil if none.
func (a *API) presetRealtime(name string) presetFunc { return nil }

// seedRealtime writes the families' seeded records of a scenario.
func seedRealtime(st *store.Store, sc *scenario.Scenario, now time.Time) error { return nil }
