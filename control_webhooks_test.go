package mockplatform

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestWebhookDeliveryThroughPlatform runs the alert and webhook path through the
// platform: a call_volume rule, chat conversations, a signed
// alerts.triggered verified with VerifyWebhook, the delivery log in Go and
// in the control plane, and a reset that drops it.
func TestWebhookDeliveryThroughPlatform(t *testing.T) {
	t.Parallel()
	got := make(chan *http.Request, 8)
	bodies := make(chan []byte, 8)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer rcv.Close()
	p := Start(t)
	do := func(method, url, body string, headers ...string) map[string]any {
		t.Helper()
		status, m := call(t, p, method, url, body, headers...)
		if status >= 300 {
			t.Fatalf("%s %s: %d %v", method, url, status, m)
		}
		return m
	}
	bk := []string{"x-api-key", "test-builder-key", "Content-Type", "application/json"}
	ep := do("POST", p.BuilderURL("us")+"/v1/webhook-endpoints", `{"name":"r","url":"`+rcv.URL+`","event_types":["alerts.triggered"]}`, bk...)
	do("POST", p.BuilderURL("us")+"/v1/alert-rules", `{"name":"v","metric":"call_volume","operator":">=","threshold_value":2,"window_duration":"5m"}`, bk...)
	var convs []string
	for range 2 {
		m := do("POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", "", "X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token")
		convs = append(convs, m["conversation_id"].(string))
	}
	p.Advance(time.Minute)
	// The attempt ran inside the Advance: it has arrived.
	var req *http.Request
	select {
	case req = <-got:
	default:
		t.Fatal("no delivery when Advance returned")
	}
	body := <-bodies
	if err := VerifyWebhook(ep["signing_secret"].(string), req.Header, body); err != nil {
		t.Fatal(err)
	}
	if err := VerifyWebhook("whsec_wrong", req.Header, body); err != ErrWebhookBadSignature {
		t.Fatalf("wrong secret: %v", err)
	}
	if ts, err := WebhookTimestamp(req.Header); err != nil || !ts.Equal(p.Now()) {
		t.Fatalf("timestamp %v %v, want %v", ts, err, p.Now())
	}
	if d := p.Deliveries(); len(d) != 1 || !d[0].Delivered {
		t.Fatalf("deliveries %+v", d)
	}
	m := do("GET", p.URL()+"/_mock/webhooks/deliveries", "")
	if list, _ := m["deliveries"].([]any); len(list) != 1 {
		t.Fatalf("control deliveries %v", m)
	}
	// Inputs of the metrics from Go and the control plane.
	if err := p.RecordFunctionError(convs[0]); err != nil {
		t.Fatal(err)
	}
	if err := p.RecordCrash("CONV-0"); err == nil {
		t.Fatal("unknown conversation accepted")
	}
	do("POST", p.URL()+"/_mock/alerts/inputs", `{"kind":"crash","conversation_id":"`+convs[1]+`"}`, "Content-Type", "application/json")
	do("POST", p.URL()+"/_mock/alerts/inputs", `{"kind":"api_error","account":"acme","project":"support"}`, "Content-Type", "application/json")
	do("POST", p.URL()+"/_mock/alerts/evaluate", "", "Content-Type", "application/json")
	conv, err := p.Conversation(convs[1])
	if err != nil || len(conv.Crashes) != 1 || conv.InProgress {
		t.Fatalf("crash not recorded: %+v %v", conv, err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if d := p.Deliveries(); len(d) != 0 {
		t.Fatalf("deliveries after reset: %+v", d)
	}
	// After the reset no rule exists, so no evaluation timer runs; a new
	// rule arms it again.
	if n := p.clock.Pending(); n != 0 {
		t.Fatalf("%d timers after a reset to a scenario without rules", n)
	}
	do("POST", p.BuilderURL("us")+"/v1/alert-rules", `{"name":"v","metric":"call_volume","operator":">=","threshold_value":2,"window_duration":"5m"}`, bk...)
	if n := p.clock.Pending(); n != 1 {
		t.Fatalf("%d timers after creating a rule, want the evaluation timer", n)
	}
}
