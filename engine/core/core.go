// Package core is what every package of the engine shares: the domain's
// error (Error, its Kind and FieldError), the rules a request body obeys
// (FieldRule, Fidelity), who a request acts as (Principal), the scenario
// as requests read it (View), the instance's seeded id streams (IDs), and
// the handles a family's service runs on (Env). It knows no family:
// imports point from the engine and its family packages down to core,
// and from core to the store, the scenario and the clock.
package core

import (
	"log/slog"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/store"
)

// Env is what a family's service runs on: the instance's store, virtual
// clock, log, id streams and the view in force (a load swaps it whole, so
// a service reads it when it needs it, never keeps it).
type Env struct {
	Store *store.Store
	Clock *clock.Clock
	Log   *slog.Logger
	IDs   *IDs
	View  func() *View
}
