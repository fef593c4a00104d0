// Package handlers is the HTTP edge of the agent platform API over package
// engine. Each family declares itself once as a Family (family.go); the
// table's gin engine is built once per process, and handlers are method
// expressions bound at dispatch to the API instance that got the request.
package handlers

import (
	"context"
	"net/http"
	"sync"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"

	"github.com/agentplatform/mockplatform/scenario"
)

// API is the HTTP edge of one platform instance: it serves the family
// table's routes over its Engine, and journals every exchange.
type API struct {
	*engine.Engine
	journal *journal.Journal
	// coverage counts what clients exercised; a reset keeps it.
	coverage *coverage.Counts

	// tab is shared and read-only; states are per Family.State.
	tab    *table
	states []FamilyState
	// observe, when set, sees every exchange (observe.go).
	observe func(Exchange)

	// messaging is the live messaging sessions. Lock order: any lock of
	// the Engine, session.mu, its sockets' rtConn.mu, messaging.mu.
	messaging messagingState

	// bg is cancelled by Interrupt and Close; sockets watch it and count
	// their goroutines in wg.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open wires an instance serving the family table and loads its
// scenario; observe, when set, sees every exchange. Close releases it.
func Open(cfg engine.Config, observe func(Exchange)) (*API, error) {
	return openTable(cfg, observe, defaultTable())
}

func openTable(cfg engine.Config, observe func(Exchange), tab *table) (*API, error) {
	cfg.Vocabulary = tab.scenario
	counts := coverage.NewCounts(tab.catalogue)
	cfg.Recorder = counts
	e, err := engine.OpenEngine(cfg)
	if err != nil {
		return nil, err
	}
	a := &API{Engine: e, journal: journal.New(0, 0), coverage: counts, tab: tab, observe: observe}
	a.bg, a.cancel = context.WithCancel(context.Background())
	for _, f := range tab.families {
		if f.State != nil {
			a.states = append(a.states, f.State(a))
		}
	}
	e.OnReset(a.resetEdge)
	e.OnActivity(a.journalActivity)
	e.SetSessions(timelineSessions{a})
	if err := e.Load(); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Journal is the instance's request journal.
func (a *API) Journal() *journal.Journal { return a.journal }

// Coverage is the instance's coverage counts.
func (a *API) Coverage() *coverage.Counts { return a.coverage }

// resetEdge resets the edge's state after the engine's (Engine.OnReset).
func (a *API) resetEdge(sc *scenario.Scenario) {
	a.journal.Reset(sc.Limits.JournalSize, sc.Limits.JournalBodyBytes)
	a.resetMessaging()
	for _, st := range a.states {
		st.Reset()
	}
}

// Interrupt cancels the sockets and the engine's background work without
// waiting (Engine.Interrupt).
func (a *API) Interrupt() {
	a.cancel()
	a.Engine.Interrupt()
}

// Close stops the sockets and waits for them, then closes the engine.
// Serve no request after it.
func (a *API) Close() {
	a.cancel()
	a.wg.Wait()
	a.Engine.Close()
}

// ServeHTTP serves the API's families through the table's gin engine.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := &reqState{api: a}
	st.carrier = carrier{ResponseWriter: w, st: st}
	a.tab.engine.ServeHTTP(&st.carrier, r)
}

// familyState is the family state of type T, found by type so handlers
// need not name their family.
func familyState[T FamilyState](a *API) T {
	for _, s := range a.states {
		if t, ok := s.(T); ok {
			return t
		}
	}
	panic("handlers: no family state of this type")
}
