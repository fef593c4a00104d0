package mockplatform

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Deterministic replay (docs/time.md): the same scenario, seed, requests
// and advances give the same delivery log, webhook requests (bodies and
// signatures as the receiver got them), request journal (ids, times,
// order), conversation records and messaging events. The session below
// touches chat, messaging, outbound calling, alerts, webhooks (a receiver
// that fails, then recovers) and external events, under a timeline that
// adds background chats, sessions and calls, a fault window, a receiver's
// down window and a campaign; it runs twice, in two fresh platforms, and
// everything is compared.

// replayHook is one webhook request as the receiver got it.
type replayHook struct {
	Receiver                      string
	Timestamp, Signature, EventID string
	ContentType, UserAgent, Team  string
	Body                          string
}

// replayRecord is everything a session leaves behind.
type replayRecord struct {
	Deliveries    []DeliveryAttempt
	Hooks         []replayHook
	Journal       []Request
	Conversations []*store.Conversation
	Socket        []map[string]any
	Answers       []string
	Timeline      TimelineStatus
}

// replayTimeline is the session's timeline (docs/timeline.md).
const replayTimeline = `
timeline:
  - {until: 30m, traffic: {project: support, chats_per_minute: 2, ramp_to: 6, turns: 1-3, think: 5s-20s}}
  - {until: 20m, sessions: {project: support, sessions_per_minute: 0.5, turns: 1-2, think: 10s-30s}}
  - {from: 5m, until: 15m, calls: {number: "+14155550150", calls_per_minute: 1}}
  - {at: 2m, for: 3m, fault: {match: {family: chat, path: /v1/*/*/chat/respond}, action: {status: 503}, probability: 0.3}}
  - {at: 1m, do: {webhook_receiver: down, for: 4m, endpoint: flaky}}
  - {every: 10m, until: 30m, do: {outbound_campaign: {project: support, first: "+14155552600", count: 3, pace: 10s}}}
`

// replayReceiver is a webhook receiver: it records each request and
// answers status(n) to the n-th.
func replayReceiver(t *testing.T, name string, mu *sync.Mutex, hooks *[]replayHook, status func(n int) int) string {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		n++
		st := status(n)
		*hooks = append(*hooks, replayHook{Receiver: name, Timestamp: r.Header.Get(WebhookTimestampHeader),
			Signature: r.Header.Get(WebhookSignatureHeader), EventID: r.Header.Get(WebhookEventIDHeader),
			ContentType: r.Header.Get("Content-Type"), UserAgent: r.Header.Get("User-Agent"), Team: r.Header.Get("X-Team"), Body: string(body)})
		mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// replaySession runs the scripted session on a fresh platform: the
// default scenario with a messaging signing key, as a test that wants the
// same access tokens on every run sets one (each instance draws a random
// key otherwise, docs/scenarios.md#messaging).
func replaySession(t *testing.T) replayRecord {
	t.Helper()
	p := Start(t, WithScenarioYAML(append(scenario.DefaultYAML(), "\nmessaging: {signing_key: replay-signing-key-0123456789abcdef}\n"+replayTimeline...)))
	c := p.Client()
	var rec replayRecord
	var mu sync.Mutex
	var hooks []replayHook
	okURL := replayReceiver(t, "ok", &mu, &hooks, func(int) int { return http.StatusOK })
	flakyURL := replayReceiver(t, "flaky", &mu, &hooks, func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})

	call := func(method, path, body string, headers ...string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, p.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		rec.Answers = append(rec.Answers, method+" "+path+" "+resp.Status+" "+string(data))
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		return m
	}
	builder := []string{"x-api-key", "test-builder-key"}
	chat := []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token"}
	chatBase := "/runtime/us-1/v1/acme/support/chat"

	// Webhooks and alert rules.
	call("POST", "/builder/us/v1/webhook-endpoints", `{"name":"ok","url":"`+okURL+`","event_types":["alerts.triggered","alerts.resolved"],"headers":{"X-Team":"ops"}}`, builder...)
	call("POST", "/builder/us/v1/webhook-endpoints", `{"name":"flaky","url":"`+flakyURL+`","event_types":["alerts.triggered"]}`, builder...)
	call("POST", "/builder/us/v1/alert-rules", `{"name":"busy","project_id":"support","metric":"call_volume","operator":">=","threshold_value":3,"window_duration":"5m"}`, builder...)
	call("POST", "/builder/us/v1/alert-rules", `{"name":"errors","metric":"api_errors","operator":">","threshold_value":0,"window_duration":"5m"}`, builder...)
	call("POST", "/builder/us/v1/alert-rules", `{"name":"slow","project_id":"support","metric":"turn_latency_p95","operator":">","threshold_value":500,"window_duration":"10m"}`, builder...)

	// Chat, with one failure answered 500 (an API error).
	var convs []string
	for range 3 {
		m := call("POST", chatBase+"/create", `{"channel":"webchat"}`, chat...)
		convs = append(convs, m["conversation_id"].(string))
	}
	if _, err := p.AddFault(Fault{Match: faultMatch("chat", "/v1/*/*/chat/respond"), Action: faultStatus(500), Times: 1}); err != nil {
		t.Fatal(err)
	}
	call("POST", chatBase+"/respond", `{"conversation_id":"`+convs[0]+`","message":"hello"}`, chat...) // 500
	call("POST", chatBase+"/respond", `{"conversation_id":"`+convs[0]+`","message":"where is order 123"}`, chat...)
	p.Advance(20 * time.Second)
	call("POST", chatBase+"/respond", `{"conversation_id":"`+convs[1]+`","message":"opening hours?"}`, chat...)
	call("POST", chatBase+"/respond", `{"conversation_id":"`+convs[2]+`","message":"a human please"}`, chat...)

	// An external event bound to a conversation.
	call("POST", "/runtime/us-1/v1/external-events/webhook?account_id=acme&project_id=support&event_id_location=querystring&event_id_path=cid&cid="+convs[1],
		`{"status":"paid"}`, "X-Api-Key", "test-external-events-key")

	// Messaging: a session, its socket, a join and a message.
	tok := call("POST", "/messaging/api/v1/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")["access_token"].(string)
	sid := call("POST", "/messaging/api/v1/sessions", "{}", "Authorization", "Bearer "+tok)["session_id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(p.MessagingURL(), "http") + "/ws?" + url.Values{"session_id": {sid}, "access_token": {tok}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	read := func() map[string]any {
		t.Helper()
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("socket: %v", err)
		}
		var ev map[string]any
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		rec.Socket = append(rec.Socket, ev)
		return ev
	}
	send := func(typ string, payload any) {
		t.Helper()
		data, _ := json.Marshal(map[string]any{"type": typ, "payload": payload})
		if err := ws.Write(ctx, websocket.MessageText, data); err != nil {
			t.Fatal(err)
		}
	}
	untilAgent := func() {
		t.Helper()
		for read()["type"] != "EVENT_TYPE_POLY_AGENT_MESSAGE" {
		}
	}
	read() // the history batch
	send("EVENT_TYPE_REQUEST_POLY_AGENT_JOIN", map[string]any{})
	untilAgent()
	send("EVENT_TYPE_USER_MESSAGE", map[string]any{"text": "what are your opening hours"})
	untilAgent()

	// Outbound: a call answered after queue and ring.
	out := []string{"X-Service-Auth-Token", "test-outbound-token"}
	callSID := call("POST", "/runtime/us-1/v1/outbound-calling", `{"to_number":"+14155552671"}`, out...)["call_sid"].(string)

	// The first evaluation (volume and errors trigger), the attempts and
	// retries, the session's expiry, the call's progress and retention.
	for _, d := range []time.Duration{30 * time.Second, 10 * time.Second, time.Minute, 5 * time.Minute, 10 * time.Minute, 6 * time.Hour} {
		p.Advance(d)
		call("GET", "/runtime/us-1/v1/outbound-calling/"+callSID+"/status", "", out...)
		call("GET", "/builder/us/v1/alerts", "", builder...)
	}
	for {
		ev := read()
		if ev["type"] == "EVENT_TYPE_SESSION_END" {
			break
		}
	}

	rec.Deliveries = p.Deliveries()
	for i := range rec.Deliveries {
		rec.Deliveries[i].URL = strings.NewReplacer(okURL, "<ok>", flakyURL, "<flaky>").Replace(rec.Deliveries[i].URL)
	}
	mu.Lock()
	rec.Hooks = append([]replayHook(nil), hooks...)
	mu.Unlock()
	rec.Journal = p.Requests(RequestFilter{})
	for i := range rec.Journal {
		// The WebSocket handshake key is the client's random nonce, not
		// the platform's doing.
		delete(rec.Journal[i].RequestHeader, "Sec-Websocket-Key")
		rec.Journal[i].RequestBody = strings.NewReplacer(okURL, "<ok>", flakyURL, "<flaky>").Replace(rec.Journal[i].RequestBody)
		rec.Journal[i].ResponseBody = strings.NewReplacer(okURL, "<ok>", flakyURL, "<flaky>").Replace(rec.Journal[i].ResponseBody)
	}
	for i, a := range rec.Answers {
		rec.Answers[i] = strings.NewReplacer(okURL, "<ok>", flakyURL, "<flaky>").Replace(a)
	}
	list, _, err := p.Store().ListConversations(store.ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"})
	if err != nil {
		t.Fatal(err)
	}
	rec.Conversations = list
	rec.Timeline = p.Timeline()
	return rec
}

// TestDeterministicReplay runs the session twice in fresh platforms and
// compares everything it left.
func TestDeterministicReplay(t *testing.T) {
	t.Parallel()
	first := replaySession(t)
	second := replaySession(t)
	// The session did what it says (so that equal records mean something).
	if len(first.Hooks) < 5 || len(first.Deliveries) < 5 || len(first.Conversations) < 5 || len(first.Socket) < 8 {
		t.Fatalf("the session did too little: %d hooks, %d deliveries, %d conversations, %d socket events",
			len(first.Hooks), len(first.Deliveries), len(first.Conversations), len(first.Socket))
	}
	steps, failed := 0, 0
	for _, e := range first.Journal {
		if e.Source == "timeline" {
			steps++
			if e.Timeline.Error != "" {
				failed++
			}
		}
	}
	if steps < 200 || failed == 0 || len(first.Timeline.Entries) != 6 {
		t.Fatalf("the timeline did too little: %d steps journaled, %d failed, status %+v", steps, failed, first.Timeline)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Fatalf("two runs of one session differ (-first +second):\n%s", diff)
	}
}
