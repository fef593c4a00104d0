// Package handlers serves every family of the agent platform API. Each
// family declares itself once, in its own file, as a Family: its routes
// (one line each, as miniredis lists its commands), credentials, error
// shape, state, counts, presets and documentation; the family table
// (family.go) lists them, and the router, the vocabularies of faults and
// scenarios and the OpenAPI document derive from it. The table's gin
// engine is built once per process and shared: each API (one per platform
// instance) serves through it, and every handler is a method expression
// bound at dispatch to the API that received the request. A sub-resource
// with routes of its own has its own file (agents_branches.go,
// telephony_numbers.go, messaging_socket.go). Handlers return an error
// value; one renderer per family shape writes it.
//
// Handlers are the HTTP edge of package engine, which holds the domain: a
// request travels one way, edge (middleware) → family handler → engine →
// store, and back (the module's imports test keeps it so).
package handlers

import (
	"context"
	crand "crypto/rand"
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
	// coverage counts what the instance's clients exercised; a reset
	// keeps it (docs/coverage.md).
	coverage *coverage.Counts

	// tab is the family table the API serves (family.go): shared by
	// every instance, read-only. states holds the in-memory state of the
	// families that declare one (Family.State), made by newAPI.
	tab    *table
	states []FamilyState
	// observe, when set, sees every exchange (observe.go).
	observe func(Exchange)

	// messaging is the live messaging sessions and their sockets
	// (messaging.go); session.mu, then its sockets' rtConn.mu, then
	// messaging.mu, after any lock of the Engine.
	messaging messagingState

	// bg is cancelled by Interrupt and Close; sockets watch it, and
	// their goroutines register in wg.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Open wires an instance serving the family table, and loads its
// scenario; observe, when set, sees every exchange it serves
// (observe.go). Close releases it all.
func Open(cfg engine.Config, observe func(Exchange)) (*API, error) {
	return openTable(cfg, observe, defaultTable())
}

// openTable is Open serving the family table tab.
func openTable(cfg engine.Config, observe func(Exchange), tab *table) (*API, error) {
	cfg.Vocabulary = tab.scenario
	counts := coverage.NewCounts(tab.catalogue)
	e, err := engine.OpenEngine(cfg)
	if err != nil {
		return nil, err
	}
	a := &API{Engine: e, journal: journal.New(0, 0), coverage: counts, tab: tab, observe: observe}
	a.bg, a.cancel = context.WithCancel(context.Background())
	a.messaging.randomKey = make([]byte, 32)
	crand.Read(a.messaging.randomKey) // never fails (crypto/rand crashes the process rather)
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

// Coverage is the instance's coverage counts: the edge records every
// request in them, and the engine reports its transitions and clock
// events to them (a coverage.Recorder).
func (a *API) Coverage() *coverage.Counts { return a.coverage }

// resetEdge brings the edge's state back to the scenario's initial state,
// after the engine's (Engine.OnReset): the journal, the live messaging
// sessions, the families' own states.
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

// ServeHTTP serves the API's families (every request is journaled): the
// table's engine routes the request, and finds this API in the request's
// state, which rides on the response writer (stateOf).
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := &reqState{api: a}
	st.carrier = carrier{ResponseWriter: w, st: st}
	a.tab.engine.ServeHTTP(&st.carrier, r)
}

// familyState is the in-memory state of type T of a family that declares
// one (Family.State). Found by its type, it names no family, so that a
// family's handlers can reach it without referring to the family's
// declaration.
func familyState[T FamilyState](a *API) T {
	for _, s := range a.states {
		if t, ok := s.(T); ok {
			return t
		}
	}
	panic("handlers: no family state of this type")
}
