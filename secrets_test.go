package mockplatform

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// secretsScenario gives every credential, the seeded webhook endpoint's
// header, URL password and signing secret, a fault's header predicate and
// the messaging signing key a value containing "S3CRET", so that one
// search finds any of them.
const secretsScenario = `name: secrets
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        name: Support
        outbound: {enabled: true}
        dni: {numbers: ["+14155550100"], window: 15m}
    webhook_endpoints:
      - name: seeded
        url: http://hookuser:S3CRET-seed-url-pass@HOSTPORT/seeded
        headers: {Authorization: "Bearer S3CRET-seed-header"}
        signing_secret: whsec_S3CRETseedsigning
credentials:
  - {kind: chat, key: S3CRET-chat, account: acme, project: support}
  - {kind: connector, key: S3CRET-connector, account: acme, project: support, hosts: [localhost]}
  - {kind: builder, key: S3CRET-builder, account: acme}
  - {kind: conversations, key: S3CRET-conversations, account: acme}
  - {kind: outbound, key: S3CRET-outbound, account: acme}
  - {kind: external_events, key: S3CRET-external, account: acme}
  - {kind: dni, key: S3CRET-dni, account: acme, project: support}
  - {kind: handoff, key: S3CRET-handoff, account: acme}
messaging: {signing_key: S3CRET-jwt-signing-key-0123456789abcdef}
faults:
  - {match: {family: handoff, path: /never, headers: {X-Api-Key: S3CRET-handoff}}, action: {status: 503}}
`

// TestSecretsNeverShown runs a scripted session that uses every kind of
// secret (each family's key, connector token, access token, webhook
// endpoint headers, URL passwords and signing secrets, a fault predicate
// on a key) and searches every surface where the mock shows what it was
// given: the journal in Go and over HTTP, GET /_mock/scenario,
// GET /_mock/faults, the delivery log in Go and over HTTP, the web
// console's pages, the debug log and every error answer. No secret may appear in any of them.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	received := 0
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		received++
		mu.Unlock()
	}))
	defer rcv.Close()
	hostport := strings.TrimPrefix(rcv.URL, "http://")

	var logs syncLog
	p := Start(t, WithScenarioYAML([]byte(strings.ReplaceAll(secretsScenario, "HOSTPORT", hostport))),
		WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	client := socketClient(t)
	var errorBodies []string
	secrets := []string{"S3CRET"} // every value of the scenario contains it
	do := func(method, u string, body any, headers ...string) reply {
		t.Helper()
		r := send(t, client, method, u, body, append([]string{"Content-Type", "application/json"}, headers...)...)
		if r.Status >= 400 {
			errorBodies = append(errorBodies, string(r.Body))
		}
		return r
	}
	rt, bd := p.RuntimeURL("us-1"), p.BuilderURL("us")

	// Chat, and a wrong key whose value an error must not echo.
	chat := do("POST", rt+"/v1/acme/support/chat/create", nil, "X-API-KEY", "S3CRET-chat", "X-TOKEN", "S3CRET-connector")
	mustStatus(t, chat, 200)
	convID := chat.object(t)["conversation_id"].(string)
	mustStatus(t, do("POST", rt+"/v1/acme/support/chat/respond", map[string]any{"conversation_id": convID, "message": "hello"},
		"X-API-KEY", "S3CRET-chat", "X-TOKEN", "S3CRET-connector"), 200)
	mustStatus(t, do("POST", rt+"/v1/acme/support/chat/create", nil, "X-API-KEY", "S3CRET-wrong-key", "X-TOKEN", "S3CRET-connector"), 401)

	// Messaging: the access token in a body, a header and a query.
	tokReply := do("POST", p.MessagingURL()+"/api/v1/access-token", "{}", "X-Token", "S3CRET-connector", "X-Host", "localhost")
	mustStatus(t, tokReply, 200)
	tok := tokReply.object(t)["access_token"].(string)
	secrets = append(secrets, tok)
	sess := do("POST", p.MessagingURL()+"/api/v1/sessions", "{}", "Authorization", "Bearer "+tok)
	mustStatus(t, sess, 200)
	mustStatus(t, do("POST", p.MessagingURL()+"/api/v1/sessions", "{}", "Authorization", "Bearer "+tok+"x"), 401)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(p.MessagingURL(), "http")+"/ws?"+
		url.Values{"session_id": {sess.object(t)["session_id"].(string)}, "access_token": {tok}}.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = ws.Close(websocket.StatusNormalClosure, "")

	// A webhook endpoint made through the API: headers, URL password and
	// signing secrets in bodies; a rotation; a GET that shows the headers.
	ep := do("POST", bd+"/v1/webhook-endpoints", map[string]any{"name": "api", "event_types": []string{"alerts.triggered"},
		"url": "http://apiuser:S3CRET-api-url-pass@" + hostport + "/api", "headers": map[string]string{"X-Hook-Auth": "S3CRET-api-header"}},
		"x-api-key", "S3CRET-builder")
	mustStatus(t, ep, 201)
	epID := ep.object(t)["id"].(string)
	secrets = append(secrets, ep.object(t)["signing_secret"].(string))
	mustStatus(t, do("PATCH", bd+"/v1/webhook-endpoints/"+epID, map[string]any{"headers": map[string]string{"X-Hook-Auth": "S3CRET-api-header-2"}},
		"x-api-key", "S3CRET-builder"), 200)
	rot := do("POST", bd+"/v1/webhook-endpoints/"+epID+"/rotate-secret", nil, "x-api-key", "S3CRET-builder")
	mustStatus(t, rot, 200)
	secrets = append(secrets, rot.object(t)["signing_secret"].(string))
	mustStatus(t, do("GET", bd+"/v1/webhook-endpoints/"+epID, nil, "x-api-key", "S3CRET-builder"), 200)
	mustStatus(t, do("GET", bd+"/v1/webhook-endpoints", nil, "x-api-key", "S3CRET-builder"), 200)
	mustStatus(t, do("POST", bd+"/v1/webhook-endpoints", map[string]any{"name": "bad", "url": "ftp://u:S3CRET-bad-url@x/",
		"event_types": []string{"alerts.triggered"}}, "x-api-key", "S3CRET-builder"), 400)

	// An alert that fires deliveries to both endpoints.
	mustStatus(t, do("POST", bd+"/v1/alert-rules", map[string]any{"name": "v", "metric": "call_volume", "operator": ">=",
		"threshold_value": 1, "window_duration": "5m"}, "x-api-key", "S3CRET-builder"), 201)
	p.Advance(time.Minute) // the attempts run inside the Advance
	mu.Lock()
	if received != 2 {
		t.Errorf("the receiver got %d deliveries, want 2", received)
	}
	mu.Unlock()

	// The other families' keys.
	mustStatus(t, do("POST", rt+"/v1/outbound-calling", map[string]any{"to_number": "+14155550199"}, "X-Service-Auth-Token", "S3CRET-outbound"), 200)
	mustStatus(t, do("POST", rt+"/v1/external-events/webhook?event_id_location=payload&event_id_path=id&account_id=acme&project_id=support",
		`{"id":"E1"}`, "X-Api-Key", "S3CRET-external"), 201)
	// External events bound to the chat conversation, with secrets in
	// their payloads (JSON and form): the API returns them as stored
	// (the test's own data, opaque to the service); the surfaces that
	// look at the mock redact them (handlers/redact.go).
	ev := rt + "/v1/external-events/webhook?event_id_location=payload&event_id_path=ref&account_id=acme&project_id=support"
	mustStatus(t, do("POST", ev, "ref="+convID+"&password=S3CRET-event-form", "X-Api-Key", "S3CRET-external",
		"Content-Type", "application/x-www-form-urlencoded"), 201)
	mustStatus(t, do("POST", ev, map[string]any{"ref": convID, "secret": "S3CRET-event-json", "card": map[string]any{"token": "S3CRET-event-token"}},
		"X-Api-Key", "S3CRET-external"), 201)
	v3 := do("GET", rt+"/v3/acme/support/conversations", nil, "x-api-key", "S3CRET-conversations")
	mustStatus(t, v3, 200)
	for _, raw := range []string{`"secret":"S3CRET-event-json"`, `"token":"S3CRET-event-token"`} { // the state holds an id's last event
		if !strings.Contains(string(v3.Body), raw) {
			t.Errorf("the v3 conversations answer lacks %s: the API returns payloads as stored", raw)
		}
	}
	mustStatus(t, do("POST", rt+"/v1/conversations/dni-reservation", map[string]any{"attributes": map[string]any{}}, "x-api-key", "S3CRET-dni"), 200)
	mustStatus(t, do("GET", rt+"/v3/acme/support/conversations", nil, "x-api-key", "S3CRET-conversations"), 200)
	mustStatus(t, do("GET", rt+"/v1/acme/support/handoff_state?id="+convID, nil, "x-api-key", "S3CRET-handoff"), 404)

	// A fault rule that matches one key.
	mustStatus(t, do("POST", p.URL()+"/_mock/faults", map[string]any{"match": map[string]any{"family": "chat", "path": "/never",
		"headers": map[string]string{"X-API-KEY": "S3CRET-chat"}}, "action": map[string]any{"status": 503}}), 201)

	// Every surface.
	surfaces := map[string]string{}
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	surfaces["journal (Go)"] = jsonOf(p.Requests(RequestFilter{}))
	surfaces["delivery log (Go)"] = jsonOf(p.Deliveries())
	for _, path := range []string{"/requests", "/scenario", "/faults", "/webhooks/deliveries"} {
		r := do("GET", p.URL()+"/_mock"+path, nil)
		mustStatus(t, r, 200)
		surfaces["GET /_mock"+path] = string(r.Body)
	}
	// The web console's pages (it reads the same redacted sources).
	for _, page := range []string{"/", "/conversations", "/conversations/" + convID, "/requests", "/faults", "/alerts", "/calls", "/scenario"} {
		r := send(t, client, "GET", p.URL()+"/_mock/ui"+page, nil, "Accept", "text/html")
		mustStatus(t, r, 200)
		surfaces["console "+page] = string(r.Body)
	}
	surfaces["debug log"] = logs.String()
	surfaces["error answers"] = strings.Join(errorBodies, "\n")

	if n := len(p.Requests(RequestFilter{})); n < 19 {
		t.Fatalf("only %d journal entries: the session did not run", n)
	}
	if !strings.Contains(surfaces["debug log"], "msg=request") {
		t.Fatalf("no request lines in the debug log:\n%s", surfaces["debug log"])
	}
	for name, text := range surfaces {
		for _, s := range secrets {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s shows a secret: …%s…", name, text[max(0, i-80):min(len(text), i+80)])
			}
		}
	}
	// The redactions are visible where the values were.
	for name, want := range map[string]*regexp.Regexp{
		"journal (Go)":        regexp.MustCompile(`X-Hook-Auth\\":\\"\[REDACTED\]`),
		"GET /_mock/scenario": regexp.MustCompile(`hookuser:%5BREDACTED%5D@.*"Authorization":"\[REDACTED\]"`),
		"GET /_mock/faults":   regexp.MustCompile(`"X-Api-Key":"\[REDACTED\]"`),
		"delivery log (Go)":   regexp.MustCompile(`apiuser:%5BREDACTED%5D@`),
		"GET /_mock/requests": regexp.MustCompile(`password=%5BREDACTED%5D`),
	} {
		if !want.MatchString(surfaces[name]) {
			t.Errorf("%s: no %s in\n%s", name, want, surfaces[name])
		}
	}
	page := surfaces["console /conversations/"+convID]
	if want := regexp.MustCompile(`(?s)password=%5BREDACTED%5D.*&#34;secret&#34;: ?&#34;\[REDACTED\]`); !want.MatchString(page) {
		t.Errorf("the console's conversation page: no %s in\n%s", want, page)
	}
}

// syncLog is a log buffer safe for concurrent writes.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
