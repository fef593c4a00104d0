package handlers

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

var (
	newWebhookIDRE  = regexp.MustCompile(`^whe_[A-Za-z0-9]{22}$`)
	webhookSecretRE = regexp.MustCompile(`^whsec_[A-Za-z0-9]{32}$`)
)

func TestWebhookCRUD(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	got := h.webhookCreate(map[string]any{"name": "ops", "url": "https://example.com/hook", "event_types": []string{"alerts.triggered"}})
	id, secret := got["id"].(string), got["signing_secret"].(string)
	if !newWebhookIDRE.MatchString(id) || !webhookSecretRE.MatchString(secret) {
		t.Fatalf("id %q secret %q", id, secret)
	}
	now := engine.FmtAlertTime(h.clock.Now())
	view := map[string]any{"id": id, "name": "ops", "url": "https://example.com/hook", "enabled": true,
		"event_types": []string{"alerts.triggered"}, "headers": map[string]any{}, "timeout_ms": 5000,
		"created_at": now, "updated_at": now}
	withSecret := map[string]any{"signing_secret": secret}
	for k, v := range view {
		withSecret[k] = v
	}
	mustBody(t, response{Body: mustJSON(t, got)}, withSecret)
	// The secret is never shown again.
	mustBody(t, h.do("GET", builderBase+"/v1/webhook-endpoints/"+id, nil, builderHeaders...), view)
	mustBody(t, h.do("GET", builderBase+"/v1/webhook-endpoints", nil, builderHeaders...), map[string]any{"data": []any{view}})

	h.advance(time.Second)
	r := h.do("PATCH", builderBase+"/v1/webhook-endpoints/"+id, map[string]any{"enabled": false, "timeout_ms": 1000,
		"headers": map[string]string{"X-A": "b"}}, builderHeaders...)
	mustStatus(t, r, 200)
	view["enabled"], view["timeout_ms"], view["headers"], view["updated_at"] = false, 1000, map[string]any{"X-A": "b"}, engine.FmtAlertTime(h.clock.Now())
	mustBody(t, r, view)
	for q, n := range map[string]int{"?enabled=false": 1, "?enabled=true": 0, "?event_type=alerts.triggered": 1, "?event_type=alerts.resolved": 0} {
		r := h.do("GET", builderBase+"/v1/webhook-endpoints"+q, nil, builderHeaders...)
		var body struct{ Data []any }
		_ = json.Unmarshal(r.Body, &body)
		if len(body.Data) != n {
			t.Errorf("list %s: %d items, want %d", q, len(body.Data), n)
		}
	}

	// Rotation: a new secret, once.
	r = h.do("POST", builderBase+"/v1/webhook-endpoints/"+id+"/rotate-secret", nil, builderHeaders...)
	mustStatus(t, r, 200)
	rot := r.Map(t)
	if s, _ := rot["signing_secret"].(string); !webhookSecretRE.MatchString(s) || s == secret || len(rot) != 1 {
		t.Fatalf("rotate: %v", rot)
	}

	// Ids, scope, delete.
	mustStatus(t, h.do("GET", builderBase+"/v1/webhook-endpoints/hook1", nil, builderHeaders...), 422)
	mustStatus(t, h.do("POST", builderBase+"/v1/webhook-endpoints/hook1/rotate-secret", nil, builderHeaders...), 422)
	r = h.do("GET", builderBase+"/v1/webhook-endpoints/whe_unknown", nil, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, builderError{Message: engine.MsgWebhookNotFound, Errors: []engine.FieldError{}})
	mustStatus(t, h.do("GET", builderBase+"/v1/webhook-endpoints/"+id, nil, "x-api-key", "globex-builder-key"), 404)
	mustStatus(t, h.do("POST", builderBase+"/v1/webhook-endpoints/"+id+"/rotate-secret", nil, "x-api-key", "globex-builder-key"), 404)
	mustStatus(t, h.do("DELETE", builderBase+"/v1/webhook-endpoints/"+id, nil, "x-api-key", "globex-builder-key"), 404)
	mustStatus(t, h.do("DELETE", builderBase+"/v1/webhook-endpoints/"+id, nil, builderHeaders...), 204)
	mustStatus(t, h.do("GET", builderBase+"/v1/webhook-endpoints/"+id, nil, builderHeaders...), 404)
}

func TestWebhookValidationAndLimit(t *testing.T) {
	t.Parallel()
	evMsg := "must be a non-empty array of: alerts.triggered, alerts.resolved"
	cases := []struct {
		name string
		body map[string]any
		want []engine.FieldError
	}{
		{"empty", map[string]any{}, []engine.FieldError{{Field: "name", Message: "is required"}, {Field: "url", Message: "is required"}, {Field: "event_types", Message: "is required"}}},
		{"bad event", map[string]any{"name": "a", "url": "https://x.io", "event_types": []string{"alerts.fired"}}, []engine.FieldError{{Field: "event_types", Message: evMsg}}},
		{"no events", map[string]any{"name": "a", "url": "https://x.io", "event_types": []string{}}, []engine.FieldError{{Field: "event_types", Message: evMsg}}},
		{"bad url", map[string]any{"name": "a", "url": "ftp://x.io", "event_types": []string{"alerts.resolved"}}, []engine.FieldError{{Field: "url", Message: "must be an absolute http or https URL"}}},
		{"timeout", map[string]any{"name": "a", "url": "https://x.io", "event_types": []string{"alerts.resolved"}, "timeout_ms": 999},
			[]engine.FieldError{{Field: "timeout_ms", Message: "must be an integer from 1000 to 30000"}}},
		{"headers", map[string]any{"name": "a", "url": "https://x.io", "event_types": []string{"alerts.resolved"}, "headers": map[string]any{"a": 1}},
			[]engine.FieldError{{Field: "headers", Message: "must be an object of string values"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			before := h.buildDocs()
			r := h.do("POST", builderBase+"/v1/webhook-endpoints", tc.body, builderHeaders...)
			mustStatus(t, r, 400)
			mustBody(t, r, builderError{Message: engine.MsgValidationFailed, Errors: tc.want})
			if diff := cmp.Diff(before, h.buildDocs()); diff != "" {
				t.Fatal(diff)
			}
		})
	}
	// http is accepted by default; webhook_url: https refuses it.
	ok := map[string]any{"name": "a", "url": "http://127.0.0.1:1/x", "event_types": []string{"alerts.resolved"}}
	newHarness(t).webhookCreate(ok)
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {webhook_url: https}\n")
	r := h.do("POST", builderBase+"/v1/webhook-endpoints", ok, builderHeaders...)
	mustStatus(t, r, 400)
	mustBody(t, r, builderError{Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "url", Message: "must start with https://"}}})

	h = newHarness(t, alertsTwoAccounts)
	h.webhookCreate(ok)
	h.webhookCreate(ok)
	r = h.do("POST", builderBase+"/v1/webhook-endpoints", ok, builderHeaders...)
	mustStatus(t, r, 409)
	mustBody(t, r, builderError{Message: "Maximum number of webhook endpoints (2) reached", Errors: []engine.FieldError{}})
}

// webhookTrigger creates a rule and enough conversations, and advances to
// the first evaluation (which triggers).
func webhookTrigger(h *harness) time.Time {
	h.alertCreate(alertVolumeRule(nil))
	h.chatCreateN(3)
	return h.advance(time.Minute)
}

func TestWebhookRetries(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// 500, 429, 408, network-level success after: attempts 1..3 fail.
	statuses := []int{500, 429, 408, 200}
	rc := newReceiver(t, func(n int) int { return statuses[n-1] })
	ep := h.webhookCreate(map[string]any{"name": "r", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})
	t0 := webhookTrigger(h)
	first := rc.next(t)
	eventID := first.Header.Get("X-PolyAI-Event-ID")
	// Retries follow 1m, 5m, 15m on the virtual clock, same event id, each
	// signed at its own attempt time.
	due := t0
	for i, delay := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute} {
		h.advance(delay - time.Second)
		rc.none(t)
		h.advance(time.Second)
		due = due.Add(delay)
		got := rc.next(t)
		if got.Header.Get("X-PolyAI-Event-ID") != eventID {
			t.Errorf("attempt %d: event id changed", i+2)
		}
		verifySignature(t, ep["signing_secret"].(string), got, due)
		if string(got.Body) != string(first.Body) {
			t.Errorf("attempt %d: body changed", i+2)
		}
	}
	h.advance(5 * time.Hour)
	rc.none(t)
	log := h.api.Deliveries()
	var attempts []int
	for _, l := range log {
		if l.EventType == engine.EventAlertsTriggered {
			attempts = append(attempts, l.Status)
		}
	}
	if diff := cmp.Diff([]int{500, 429, 408, 200}, attempts); diff != "" {
		t.Fatalf("attempt statuses: %s", diff)
	}
	if !log[3].Delivered || log[0].NextAttemptAt == nil || !log[0].NextAttemptAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("log: %+v", log)
	}
}

func TestWebhookNoRetryAndGiveUp(t *testing.T) {
	t.Parallel()
	// A 400 is not retried.
	h := newHarness(t)
	rc := newReceiver(t, func(int) int { return 400 })
	h.webhookCreate(map[string]any{"name": "r", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h)
	rc.next(t)
	h.advance(6 * time.Hour)
	rc.none(t)
	if log := h.api.Deliveries(); len(log) != 1 || log[0].NextAttemptAt != nil || log[0].Status != 400 {
		t.Fatalf("log %+v", log)
	}

	// A failing receiver gets 6 attempts over 0, 1m, 5m, 15m, 1h, 4h.
	h = newHarness(t)
	rc = newReceiver(t, func(int) int { return 503 })
	h.webhookCreate(map[string]any{"name": "r", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})
	t0 := webhookTrigger(h)
	rc.next(t)
	for range 5 {
		h.advance(4 * time.Hour)
		rc.next(t)
	}
	h.advance(24 * time.Hour)
	rc.none(t)
	var times []time.Duration
	for _, l := range h.api.Deliveries() {
		times = append(times, l.Time.Sub(t0))
	}
	want := []time.Duration{0, time.Minute, 6 * time.Minute, 21 * time.Minute, 81 * time.Minute, 321 * time.Minute}
	if diff := cmp.Diff(want, times); diff != "" {
		t.Fatalf("attempt times: %s", diff)
	}
}

func TestWebhookRotationAndNetworkErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rc := newReceiver(t, func(n int) int {
		if n == 1 {
			return 500
		}
		return 200
	})
	ep := h.webhookCreate(map[string]any{"name": "r", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h)
	rc.next(t)
	r := h.do("POST", builderBase+"/v1/webhook-endpoints/"+ep["id"].(string)+"/rotate-secret", nil, builderHeaders...)
	newSecret := r.Map(t)["signing_secret"].(string)
	now := h.advance(time.Minute)
	got := rc.next(t)
	verifySignature(t, newSecret, got, now) // the retry is signed with the new secret

	// A receiver that is gone: a network error, retried.
	h2 := newHarness(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	h2.webhookCreate(map[string]any{"name": "r", "url": url, "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h2)
	log := h2.api.Deliveries()
	if len(log) != 1 || log[0].Error == "" || log[0].Status != 0 || log[0].NextAttemptAt == nil {
		t.Fatalf("log %+v", log)
	}
}

func TestWebhookTimeout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	h.webhookCreate(map[string]any{"name": "r", "url": srv.URL, "event_types": []string{"alerts.triggered"}, "timeout_ms": 1000})
	// The attempt runs inside the Advance, bounded by timeout_ms: Advance
	// returns once the receiver has had its second.
	webhookTrigger(h)
	log := h.api.Deliveries()
	if len(log) != 1 || log[0].Error != "timeout after 1s" || log[0].NextAttemptAt == nil {
		t.Fatalf("log %+v", log)
	}
}

func TestWebhookDisabledAndUnsubscribed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	rc := newReceiver(t, nil)
	h.webhookCreate(map[string]any{"name": "off", "url": rc.srv.URL, "event_types": []string{"alerts.triggered"}, "enabled": false})
	h.webhookCreate(map[string]any{"name": "resolved only", "url": rc.srv.URL, "event_types": []string{"alerts.resolved"}})
	webhookTrigger(h)
	rc.none(t)
	if log := h.api.Deliveries(); len(log) != 0 {
		t.Fatalf("log %+v", log)
	}
}

// TestWebhookEndpointsList lists endpoints without their secret or the
// values of their headers.
func TestWebhookEndpointsList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ep := h.webhookCreate(map[string]any{"name": "ops", "url": "http://127.0.0.1:1/hooks", "event_types": []string{"alerts.triggered"},
		"headers": map[string]string{"X-Token": "s3cret", "X-Team": "ops"}})
	got, err := h.api.WebhookEndpoints()
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.WebhookEndpoint{{ID: ep["id"].(string), Region: "us", AccountID: "1001", Name: "ops", URL: "http://127.0.0.1:1/hooks",
		Enabled: true, EventTypes: []string{"alerts.triggered"}, HeaderNames: []string{"X-Team", "X-Token"}, TimeoutMS: 5000}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("endpoints (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), ep["signing_secret"].(string)) {
		t.Fatalf("a secret leaks: %s", b)
	}
}
