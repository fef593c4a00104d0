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

// dataState is the families' state that is not stored data: only the
// concurrency cache (concurrency.go), the decoded spans of the projects
// queried last, each valid for one store.ProjectVersion, so it is
// never stale.
type dataState struct {
	mu   sync.Mutex
	conc map[concCacheKey]*concCache // at most concCacheMax
	tick uint64                      // least-recently-used clock of conc
}

// resetData re-arms the families' timers and drops live state after a
// reset. There is none: the concurrency cache is kept on purpose. A
// reset restores the snapshot's stored strings, the very strings the
// cache was built from, so its next rebuild reuses every entry (a key
// scan instead of a JSON decode per record) and a test suite that resets
// between tests over a large generated data set stays fast.
func (a *API) resetData() {}

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
