package handlers

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

// TestWebhookOneAdvanceRunsEveryAttempt: against a receiver that always
// answers 503, one Advance(6h) runs the alert evaluation that triggers and
// all six attempts (0, 1m, 5m, 15m, 1h, 4h after it), each inside the
// Advance, with one event id. Twenty fresh runs give the same log.
func TestWebhookOneAdvanceRunsEveryAttempt(t *testing.T) {
	t.Parallel()
	var first []engine.DeliveryAttempt
	for run := range 20 {
		h := newHarness(t)
		var mu sync.Mutex
		var ids []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ids = append(ids, r.Header.Get(engine.HeaderWebhookEventID))
			mu.Unlock()
			w.WriteHeader(http.StatusServiceUnavailable)
		}))
		h.webhookCreate(map[string]any{"name": "r", "url": srv.URL, "event_types": []string{"alerts.triggered"}})
		h.alertCreate(alertVolumeRule(nil))
		h.chatCreateN(3)
		h.advance(6 * time.Hour)
		srv.Close()

		log := h.api.Deliveries()
		if len(log) != 6 {
			t.Fatalf("run %d: %d attempts logged after one Advance(6h), want 6: %+v", run, len(log), log)
		}
		t0 := h.start.Add(time.Minute) // the first evaluation triggers
		want := []time.Duration{0, time.Minute, 6 * time.Minute, 21 * time.Minute, 81 * time.Minute, 321 * time.Minute}
		for i, l := range log {
			if l.Attempt != i+1 || l.EventID != log[0].EventID || l.Status != 503 || l.Delivered || l.Time.Sub(t0) != want[i] {
				t.Errorf("run %d: attempt %d: %+v (want attempt %d at +%v)", run, i+1, l, i+1, want[i])
			}
			if (l.NextAttemptAt != nil) != (i < 5) {
				t.Errorf("run %d: attempt %d: next_attempt_at %v", run, i+1, l.NextAttemptAt)
			}
			log[i].URL = "<receiver>" // each run has its own receiver
		}
		mu.Lock()
		got := append([]string(nil), ids...)
		mu.Unlock()
		if diff := cmp.Diff([]string{log[0].EventID, log[0].EventID, log[0].EventID, log[0].EventID, log[0].EventID, log[0].EventID}, got); diff != "" {
			t.Errorf("run %d: event ids the receiver got (-want +got):\n%s", run, diff)
		}
		if run == 0 {
			first = log
		} else if diff := cmp.Diff(first, log); diff != "" {
			t.Fatalf("run %d: delivery log differs from run 0 (-run0 +run%d):\n%s", run, run, diff)
		}
	}
}
