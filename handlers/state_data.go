package handlers

import (
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: conversations, concurrency, handoff,
// number reservation, external events (issue 3).
//
// These families keep everything in the store: number reservations (kind
// "dni", expiry checked against the virtual clock when read), awaited event
// ids (kind "await") and pending events (kind "event_pending"). So a reset
// or a reload from a data file needs no in-memory state and no timers.

// dataState is the families' state that is not stored data: only a memo
// of the concurrency series (spanMemo), which is validated against the
// stored value on every use, so it is never stale.
type dataState struct {
	mu    sync.Mutex
	spans map[string]*spanMemo // primary key -> memo
}

// resetData re-arms the families' timers and drops live state after a
// reset: it only drops the memo (to bound its size; it stays correct
// without that).
func (a *API) resetData() {
	a.data.mu.Lock()
	a.data.spans = nil
	a.data.mu.Unlock()
}

// presetData returns the families' named failure mode, nil if none.
func (a *API) presetData(name string) presetFunc { return nil }

// seedData writes the families' seeded records of a scenario: the
// generated conversations of each project's generators (in declaration
// order, after the explicit seeds).
func seedData(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	ids := seededIDs(sc)
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for gi := range proj.Generate {
				if err := generate(st, sc, acct, proj, gi, &proj.Generate[gi], ids, now); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
