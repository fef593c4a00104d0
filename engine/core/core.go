// Package core is what every engine package shares: the domain's Error,
// body rules, Principal, the scenario View, seeded IDs, and the Env a
// service runs on. It knows no family.
package core

import (
	"log/slog"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/store"
)

// Env is what a family's service runs on. A load swaps the view whole, so
// services read it when needed and never keep it.
type Env struct {
	Store *store.Store
	Clock *clock.Clock
	Log   *slog.Logger
	IDs   *IDs
	View  func() *View
}
