package mockdcontainer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestControlClientAdvanceStopped: an advance the server stopped early
// (503 {"cancelled": true, "now"}) gives the time the clock stopped at and
// a *ControlError; the failure is returned, not kept for Err.
func TestControlClientAdvanceStopped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":"clock: advance stopped at 2026-01-01T00:00:07Z: context canceled","now":"2026-01-01T00:00:07Z","mode":"manual","cancelled":true}`))
	}))
	defer srv.Close()
	c := overHTTP(t, srv.URL)
	got, err := c.AdvanceContext(context.Background(), time.Hour)
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Status != http.StatusServiceUnavailable {
		t.Fatalf("AdvanceContext error = %v, want a 503 *ControlError", err)
	}
	if want := time.Date(2026, 1, 1, 0, 0, 7, 0, time.UTC); !got.Equal(want) || !ce.Now.Equal(want) {
		t.Fatalf("AdvanceContext = %v (error's Now %v), want %v", got, ce.Now, want)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err() = %v, want nil: AdvanceContext returns its failure", err)
	}
	// Advance keeps it for Err, as the other methods without an error do.
	if got := c.Advance(time.Hour); !got.IsZero() {
		t.Errorf("Advance = %v, want the zero time", got)
	}
	if c.Err() == nil {
		t.Error("Err() = nil after a failed Advance")
	}
}
