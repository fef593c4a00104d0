package mockplatform

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// endlessScenario evaluates a rule every second (a year is 31.5 million
// passes) over a conversation that makes it breach at the first pass.
const endlessScenario = `
name: endless
clock: {start: 2026-01-01T00:00:00Z}
alerts: {evaluation_interval: 1s}
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        conversations:
          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
    alert_rules:
      - {name: busy, project: support, metric: call_volume, operator: ">=", threshold_value: 1, window_duration: 5m}
credentials:
  - {kind: builder, key: test-builder-key, account: acme}
`

var endlessStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// cancellingReceiver is a webhook receiver that cancels a context when
// the first delivery arrives: a deterministic point inside an Advance.
func cancellingReceiver(t *testing.T, p *Platform) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rcv.Close)
	r := send(t, p.Client(), "POST", p.BuilderURL("us")+"/v1/webhook-endpoints",
		map[string]any{"name": "r", "url": rcv.URL, "event_types": []string{"alerts.triggered"}},
		"x-api-key", "test-builder-key", "Content-Type", "application/json")
	mustStatus(t, r, http.StatusCreated)
	return ctx
}

// TestAdvanceContextEndlessSchedule: an Advance of a year with a rule
// evaluated every second returns as soon as its context is cancelled (here
// by the receiver of the first webhook, during the Advance), with the
// clock at the timer boundary it reached; the next Advance goes on from
// there.
func TestAdvanceContextEndlessSchedule(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(endlessScenario)), WithoutListener())
	ctx := cancellingReceiver(t, p)

	got, err := p.AdvanceContext(ctx, 8760*time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("AdvanceContext error = %v, want context.Canceled", err)
	}
	// The first pass (at +1s) triggers; its attempt (due at +1s) cancels;
	// no later timer fires.
	want := endlessStart.Add(time.Second)
	if !got.Equal(want) || !p.Now().Equal(want) {
		t.Fatalf("stopped at %v (Now %v), want the boundary %v", got, p.Now(), want)
	}
	if d := p.Deliveries(); len(d) != 1 || !d[0].Delivered {
		t.Fatalf("deliveries %+v, want the one that cancelled", d)
	}
	// The schedule is intact: the next Advance runs the next passes.
	if got := p.Advance(2 * time.Second); !got.Equal(want.Add(2 * time.Second)) {
		t.Fatalf("next Advance = %v", got)
	}
}

// TestControlAdvanceCancelled: the control plane's advance runs under the
// request's context; stopped, it answers 503 with where the clock stopped.
func TestControlAdvanceCancelled(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(endlessScenario)), WithoutListener())
	ctx := cancellingReceiver(t, p)

	req := httptest.NewRequest("POST", "http://localhost/_mock/clock/advance", strings.NewReader(`{"duration":"8760h"}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	stopped := endlessStart.Add(time.Second).Format(time.RFC3339Nano)
	want := reply{Status: http.StatusServiceUnavailable}
	got := reply{Status: rec.Code, Body: rec.Body.Bytes()}
	mustStatus(t, got, want.Status)
	mustJSON(t, got, map[string]any{
		"error":     "clock: advance stopped at " + stopped + ": context canceled",
		"now":       stopped,
		"mode":      "manual",
		"cancelled": true,
	})

	// A context that is done before the advance starts: nothing moves.
	req = httptest.NewRequest("POST", "http://localhost/_mock/clock/advance", strings.NewReader(`{"to":"2027-01-01T00:00:00Z"}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	rec = httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !p.Now().Equal(endlessStart.Add(time.Second)) {
		t.Fatalf("advance to with a done context: %d %s; Now %v", rec.Code, rec.Body, p.Now())
	}
}

// TestCloseStopsAdvance: closing the platform stops an Advance in
// progress at its next timer boundary.
func TestCloseStopsAdvance(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(endlessScenario)), WithoutListener())
	var once sync.Once
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { go p.Close() }) // Close waits for nothing the Advance holds
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()
	mustStatus(t, send(t, p.Client(), "POST", p.BuilderURL("us")+"/v1/webhook-endpoints",
		map[string]any{"name": "r", "url": rcv.URL, "event_types": []string{"alerts.triggered"}},
		"x-api-key", "test-builder-key", "Content-Type", "application/json"), http.StatusCreated)
	done := make(chan error, 1)
	go func() {
		_, err := p.AdvanceContext(context.Background(), 8760*time.Hour)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("an Advance of a year finished although the platform closed")
		}
	case <-time.After(time.Minute):
		t.Fatal("Close did not stop the Advance")
	}
}

// TestAdvanceIdleYear: a year over the default scenario fires nothing: no
// timer is pending before or after.
func TestAdvanceIdleYear(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	if n := p.clock.Pending(); n != 0 {
		t.Fatalf("%d timers pending in the idle default scenario", n)
	}
	start := p.Now()
	if got := p.Advance(8760 * time.Hour); !got.Equal(start.Add(8760 * time.Hour)) {
		t.Fatalf("Advance = %v", got)
	}
	if diff := cmp.Diff(0, p.clock.Pending()); diff != "" {
		t.Fatal(diff)
	}
}
