package handlers

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: agents, alerts, webhooks (issue 4).

// buildState is the families' state that is not stored data.
type buildState struct{}

// resetBuild re-arms the families' timers and drops live state after a reset.
func (a *API) resetBuild() {}

// presetBuild returns the families' named failure mode, nil if none.
func (a *API) presetBuild(name string) presetFunc { return nil }

// seedBuild writes the families' seeded records of a scenario.
func seedBuild(st *store.Store, sc *scenario.Scenario, now time.Time) error { return nil }
