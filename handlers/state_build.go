package handlers

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: agents, alerts, webhooks (issue 4).

// buildState is the families' state that is not stored data.
type buildState struct {
	// alertMu serialises count-then-insert of alert rules and webhook
	// endpoints (the per-account limits). It is held across store calls.
	alertMu sync.Mutex
	// agentMu serialises the writes of the Agents API that change what
	// the runtime answers from (held across store calls, never taken by
	// script).
	agentMu sync.Mutex

	// idx is what the runtime reads of the build side (script): it is
	// guarded by its own lock, never held across a store call, because
	// script runs inside store transactions.
	idxMu sync.RWMutex
	idx   map[string]*runtimeEntry // key: region/agentID/environment

	// evalMu serialises evaluation passes (timer and EvaluateAlerts).
	evalMu sync.Mutex
	// mu guards the fields below.
	mu        sync.Mutex
	gen       uint64 // bumped by every reset: stale timers and sends stop
	apiErrors []apiErrorMark
	log       []DeliveryAttempt
	pending   int
	idle      chan struct{} // closed while pending == 0
	client    *http.Client
}

// resetBuild re-arms the families' timers and drops live state after a
// reset: the evaluation timer, the delivery log and pending retries, the
// recorded API errors; the runtime index is rebuilt from the store.
func (a *API) resetBuild() {
	b := &a.build
	b.mu.Lock()
	b.gen++
	gen := b.gen
	b.apiErrors = nil
	b.log = nil
	if b.idle == nil {
		b.idle = make(chan struct{})
		close(b.idle)
	}
	if b.client == nil {
		b.client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	b.mu.Unlock()
	a.rebuildRuntimeIndex()
	a.armEvaluation(gen)
}

// buildGen is the current reset generation.
func (a *API) buildGen() uint64 {
	a.build.mu.Lock()
	defer a.build.mu.Unlock()
	return a.build.gen
}

// presetBuild returns the families' named failure mode, nil if none.
func (a *API) presetBuild(name string) presetFunc { return a.presetAlerts(name) }

// seedBuild writes the families' seeded records of a scenario: an agent
// per project (with its main branch, deployments and real-time configs),
// alert rules and webhook endpoints.
func seedBuild(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	if err := seedAgents(st, sc, now); err != nil {
		return err
	}
	return seedAlerts(st, sc, now)
}

// WaitDeliveries waits until no webhook delivery attempt is in flight (the
// attempts that fell due so far have been sent and logged, and their
// retries scheduled), or ctx ends.
func (a *API) WaitDeliveries(ctx context.Context) error {
	a.build.mu.Lock()
	ch := a.build.idle
	a.build.mu.Unlock()
	if ch == nil {
		return nil
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// beginSend counts an attempt in flight.
func (a *API) beginSend() {
	b := &a.build
	b.mu.Lock()
	if b.pending == 0 {
		b.idle = make(chan struct{})
	}
	b.pending++
	b.mu.Unlock()
}

// endSend ends an attempt in flight.
func (a *API) endSend() {
	b := &a.build
	b.mu.Lock()
	b.pending--
	if b.pending == 0 {
		close(b.idle)
	}
	b.mu.Unlock()
}
