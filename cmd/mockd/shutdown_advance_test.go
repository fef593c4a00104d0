package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShutdownStopsEndlessAdvance: SIGTERM during an Advance of a year
// with a rule evaluated every second stops the advance at a timer boundary
// (the control plane answers 503 with where the clock stopped) and mockd
// exits 0 within its grace.
func TestShutdownStopsEndlessAdvance(t *testing.T) {
	t.Parallel()
	delivered := make(chan struct{}, 1)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case delivered <- struct{}{}:
		default:
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer rcv.Close()
	scenario := `name: endless
clock: {start: 2026-01-01T00:00:00Z}
alerts: {evaluation_interval: 1s}
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        conversations:
          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z}
    alert_rules:
      - {name: busy, project: support, metric: call_volume, operator: ">=", threshold_value: 1, window_duration: 5m}
    webhook_endpoints:
      - {name: r, url: "` + rcv.URL + `", signing_secret: whsec_test, event_types: [alerts.triggered]}
`
	path := filepath.Join(t.TempDir(), "endless.yaml")
	if err := os.WriteFile(path, []byte(scenario), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProcess(t, "--addr", "127.0.0.1:0", "--clock", "manual", "--scenario", path, "--shutdown-grace", "5s")
	type answer struct {
		status int
		body   map[string]any
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", p.base+"/_mock/clock/advance", strings.NewReader(`{"duration":"8760h"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		answered <- answer{status: resp.StatusCode, body: m}
	}()
	// The first delivery comes from inside the advance (the first pass
	// triggers): from then on the advance runs pass after pass.
	select {
	case <-delivered:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery: the advance did not start")
	}
	p.signal(syscall.SIGTERM)
	a := <-answered
	if a.err != nil || a.status != http.StatusServiceUnavailable || a.body["cancelled"] != true {
		t.Fatalf("advance answer: %d %v %v; want 503 with cancelled", a.status, a.body, a.err)
	}
	now, err := time.Parse(time.RFC3339Nano, a.body["now"].(string))
	if err != nil || now.Nanosecond() != 0 || !now.After(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("stopped at %v (%v), want a whole second after the start (a timer boundary)", a.body["now"], err)
	}
	// Exit 0: every request ended within the grace (after it, mockd
	// abandons them and exits 1).
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
}
