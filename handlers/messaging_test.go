package handlers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/faults"
)

const msgBase = "/messaging/api/v1"

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// msgErr is the messaging error body.
func msgErr(text string) map[string]any { return map[string]any{"error": text, "message": text} }

// msgToken gets an access token with the default connector.
func msgToken(h *harness) string {
	h.t.Helper()
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost",
		"Content-Type", "application/json")
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["access_token"].(string)
}

// msgSession creates a session and returns its id.
func msgSession(h *harness, tok string, streaming bool) string {
	h.t.Helper()
	r := h.do("POST", msgBase+"/sessions", map[string]any{"streaming_enabled": streaming}, "Authorization", "Bearer "+tok)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["session_id"].(string)
}

// msgServer serves the harness on a real listener.
func msgServer(h *harness) *httptest.Server {
	srv := httptest.NewServer(h.handler())
	h.t.Cleanup(srv.Close)
	return srv
}

// wsClient is a test WebSocket client.
type wsClient struct {
	t    testing.TB
	conn *websocket.Conn
}

func msgDialURL(srv *httptest.Server, sid, tok, cursor string) string {
	q := url.Values{"session_id": {sid}, "access_token": {tok}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/messaging/ws?" + q.Encode()
}

func msgDial(t testing.TB, srv *httptest.Server, sid, tok, cursor string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, msgDialURL(srv, sid, tok, cursor), nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	conn.SetReadLimit(1 << 22)
	t.Cleanup(func() { _ = conn.CloseNow() })
	return &wsClient{t: t, conn: conn}
}

// read returns the next event (fails after 5 s).
func (w *wsClient) read() map[string]any {
	w.t.Helper()
	ev, err := w.tryRead(5 * time.Second)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	return ev
}

func (w *wsClient) tryRead(d time.Duration) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, data, err := w.conn.Read(ctx)
	if err != nil {
		return nil, err
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		w.t.Fatalf("event is not JSON: %s", data)
	}
	return ev, nil
}

// send writes a client event.
func (w *wsClient) send(typ string, payload any, meta ...map[string]any) {
	w.t.Helper()
	ev := map[string]any{"type": typ, "payload": payload}
	if len(meta) > 0 {
		ev["metadata"] = meta[0]
	}
	data, _ := json.Marshal(ev)
	w.sendRaw(data)
}

func (w *wsClient) sendRaw(data []byte) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.conn.Write(ctx, websocket.MessageText, data); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// expect reads one event and checks its type, sequence (-1: null) and
// payload (nil: not compared).
func (w *wsClient) expect(typ string, seq int, payload any) map[string]any {
	w.t.Helper()
	ev := w.read()
	if ev["type"] != typ {
		w.t.Fatalf("event type = %v, want %s: %v", ev["type"], typ, ev)
	}
	var want any
	if seq >= 0 {
		want = float64(seq)
	}
	if ev["sequence"] != want {
		w.t.Fatalf("%s sequence = %v, want %v", typ, ev["sequence"], want)
	}
	if payload != nil {
		msgSame(w.t, typ, payload, ev["payload"])
	}
	if !uuidRE.MatchString(ev["id"].(string)) || ev["id"].(string)[14] != '7' {
		w.t.Fatalf("%s id %v is not a UUIDv7", typ, ev["id"])
	}
	if _, err := time.Parse(time.RFC3339Nano, ev["timestamp"].(string)); err != nil {
		w.t.Fatalf("%s timestamp: %v", typ, err)
	}
	return ev
}

// expectClose reads until the socket closes and checks the close code.
func (w *wsClient) expectClose(code websocket.StatusCode) {
	w.t.Helper()
	for range 100 {
		_, err := w.tryRead(5 * time.Second)
		if err != nil {
			if got := websocket.CloseStatus(err); got != code {
				w.t.Fatalf("close status = %d, want %d (%v)", got, code, err)
			}
			return
		}
	}
	w.t.Fatal("socket did not close")
}

func msgSame(t testing.TB, what string, want, got any) {
	t.Helper()
	data, _ := json.Marshal(want)
	var w any
	_ = json.Unmarshal(data, &w)
	if diff := cmp.Diff(w, got); diff != "" {
		t.Fatalf("%s payload (-want +got):\n%s", what, diff)
	}
}

func capabilities(streaming bool) map[string]any {
	return map[string]any{"capabilities": map[string]any{"streaming": streaming, "max_message_size_bytes": 131072,
		"max_reconnect_attempts": 5, "heartbeat_interval_seconds": 30}}
}

// agentText returns the text of an agent message event.
func agentText(ev map[string]any) string { return ev["payload"].(map[string]any)["text"].(string) }

// ---------------------------------------------------------------- access token

func TestMessagingAccessToken(t *testing.T) {
	h := newHarness(t)
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	mustStatus(t, r, 200)
	body := r.Map(t)
	if body["expires_in"] != float64(86400) || body["token_type"] != "Bearer" {
		t.Fatalf("body = %v", body)
	}
	tok := body["access_token"].(string)
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWT", tok)
	}
	var head, claims map[string]any
	for i, v := range []*map[string]any{&head, &claims} {
		data, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	if head["alg"] != "HS256" {
		t.Fatalf("alg = %v", head["alg"])
	}
	now := h.clock.Now()
	for k, want := range map[string]any{"account_id": "1001", "project_id": "2001", "client_env": "live",
		"host": "localhost", "iat": float64(now.Unix()), "exp": float64(now.Add(24 * time.Hour).Unix())} {
		if claims[k] != want {
			t.Errorf("claim %s = %v, want %v", k, claims[k], want)
		}
	}
	if !strings.HasPrefix(claims["connector_id"].(string), "CONNECTOR-") || strings.Contains(tok, "test-connector-token") {
		t.Errorf("connector claim %v", claims["connector_id"])
	}
	// The journal never holds the token in clear.
	for _, e := range h.journal.List(Filter{}) {
		data, _ := json.Marshal(e)
		if strings.Contains(string(data), tok) || strings.Contains(string(data), "test-connector-token") {
			t.Fatalf("journal holds a secret: %s", data)
		}
	}
}

func TestMessagingAccessTokenErrors(t *testing.T) {
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [example.com, com.example.app, localhost]}
  - {kind: connector, key: nohost, account: acme, project: support}
  - {kind: connector, key: off, account: acme, project: support, hosts: [example.com], disabled: true}
  - {kind: chat, key: chatkey, account: acme, project: support}
`)
	for _, tc := range []struct {
		name, token, host string
		body              string
		status            int
		text              string
	}{
		{"exact", "ct", "example.com", "{}", 200, ""},
		{"subdomain", "ct", "app.example.com", "{}", 200, ""},
		{"deep subdomain and case", "ct", "A.B.Example.COM", "", 200, ""},
		{"port and scheme", "ct", "https://example.com:8443", "{}", 200, ""},
		{"app namespace", "ct", "com.example.app", "{}", 200, ""},
		{"localhost with port", "ct", "localhost:3000", "{}", 200, ""},
		{"subdomain of localhost", "ct", "dev.localhost", "{}", 200, ""},
		{"suffix that is no subdomain", "ct", "badexample.com", "{}", 401, MsgMessagingHostMismatch},
		{"parent domain", "ct", "com", "{}", 401, MsgMessagingHostMismatch},
		{"loopback ip", "ct", "127.0.0.1", "{}", 401, MsgMessagingHostMismatch},
		{"no X-Token", "", "example.com", "{}", 401, MsgMessagingMissingHeaders},
		{"no X-Host", "ct", "", "{}", 401, MsgMessagingMissingHeaders},
		{"unknown token", "nope", "example.com", "{}", 401, MsgMessagingNoConnector},
		{"disabled token", "off", "example.com", "{}", 401, MsgMessagingNoConnector},
		{"chat key", "chatkey", "example.com", "{}", 401, MsgMessagingNoConnector},
		{"no hosts", "nohost", "example.com", "{}", 401, MsgMessagingNoHost},
		{"bad json", "ct", "example.com", "{", 400, MsgMessagingParse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.token != "" {
				hdr = append(hdr, "X-Token", tc.token)
			}
			if tc.host != "" {
				hdr = append(hdr, "X-Host", tc.host)
			}
			r := h.do("POST", msgBase+"/access-token", tc.body, hdr...)
			mustStatus(t, r, tc.status)
			if tc.status != 200 {
				mustBody(t, r, msgErr(tc.text))
			}
		})
	}
}

func TestMessagingHostMatchExact(t *testing.T) {
	h := newHarness(t, `
fidelity: {messaging_host_match: exact}
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [example.com]}
`)
	mustStatus(t, h.do("POST", msgBase+"/access-token", "{}", "X-Token", "ct", "X-Host", "example.com"), 200)
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "ct", "X-Host", "app.example.com")
	mustStatus(t, r, 401)
	mustBody(t, r, msgErr(MsgMessagingHostMismatch))
}

// ---------------------------------------------------------------- sessions

func TestMessagingSessionCreate(t *testing.T) {
	h := newHarness(t)
	tok := msgToken(h)
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"account_id": "1001",
		"exp": h.clock.Now().Add(time.Hour).Unix(), "iss": tokenIssuer, "aud": "messaging"}).SignedString([]byte("other secret"))
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"exp": h.clock.Now().Add(time.Hour).Unix()}).
		SignedString(jwt.UnsafeAllowNoneSignatureType)
	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"account_id":"9"}`)) + "." + parts[2]
	for _, tc := range []struct {
		name, auth string
		body       any
		status     int
		text       string
	}{
		{"no body", "Bearer " + tok, nil, 200, ""},
		{"empty object", "Bearer " + tok, "{}", 200, ""},
		{"lowercase scheme", "bearer " + tok, "{}", 200, ""},
		{"all fields", "Bearer " + tok, map[string]any{"platform": "ios", "streaming_enabled": true, "device_type": "mobile"}, 200, ""},
		{"no authorization", "", "{}", 400, MsgMessagingMissingToken},
		{"not bearer", "Basic " + tok, "{}", 401, MsgMessagingMissingHeaders},
		{"bearer without token", "Bearer ", "{}", 401, MsgMessagingMissingHeaders},
		{"garbage", "Bearer abc.def.ghi", "{}", 401, MsgMessagingInvalidToken},
		{"forged", "Bearer " + forged, "{}", 401, MsgMessagingInvalidToken},
		{"alg none", "Bearer " + none, "{}", 401, MsgMessagingInvalidToken},
		{"tampered", "Bearer " + tampered, "{}", 401, MsgMessagingInvalidToken},
		{"bad platform", "Bearer " + tok, map[string]any{"platform": "windows"}, 400, MsgMessagingParse},
		{"streaming not bool", "Bearer " + tok, map[string]any{"streaming_enabled": "yes"}, 400, MsgMessagingParse},
		{"bad json", "Bearer " + tok, "{", 400, MsgMessagingParse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(h.api.MessagingSessions())
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			r := h.do("POST", msgBase+"/sessions", tc.body, hdr...)
			mustStatus(t, r, tc.status)
			after := len(h.api.MessagingSessions())
			if tc.status != 200 {
				mustBody(t, r, msgErr(tc.text))
				if after != before {
					t.Fatal("a refused request created a session")
				}
				return
			}
			if id := r.Map(t)["session_id"].(string); !uuidRE.MatchString(id) || after != before+1 {
				t.Fatalf("session_id %q, sessions %d→%d", id, before, after)
			}
		})
	}
	for _, p := range []string{"web", "ios", "android", "custom", "ios-web", "android-web"} {
		r := h.do("POST", msgBase+"/sessions", map[string]any{"platform": p}, "Authorization", "Bearer "+tok)
		mustStatus(t, r, 200)
	}
}

func TestMessagingTokenExpiry(t *testing.T) {
	h := newHarness(t)
	tok := msgToken(h)
	h.clock.Advance(24*time.Hour - time.Second)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "Bearer "+tok), 200)
	h.clock.Advance(time.Second)
	r := h.do("POST", msgBase+"/sessions", "{}", "Authorization", "Bearer "+tok)
	mustStatus(t, r, 401)
	mustBody(t, r, msgErr(MsgMessagingInvalidToken))

	// Revocation of every token issued so far.
	tok2 := msgToken(h)
	h.api.ExpireMessagingTokens()
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "Bearer "+tok2), 401)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "Bearer "+msgToken(h)), 200)
}

// ---------------------------------------------------------------- socket

func TestMessagingSocketSequence(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	ws := msgDial(t, srv, sid, tok, "")

	batch := ws.expect(evBatch, -1, nil)
	events := batch["payload"].(map[string]any)["events"].([]any)
	if len(events) != 1 {
		t.Fatalf("first batch = %v", events)
	}
	start := events[0].(map[string]any)
	if start["type"] != evSessionStart || start["sequence"] != float64(1) {
		t.Fatalf("session start = %v", start)
	}
	msgSame(t, "session start", capabilities(false), start["payload"])

	ws.send(evJoinRequest, map[string]any{})
	ws.expect(evJoinRequest, 2, map[string]any{})
	ws.expect(evAgentJoined, 3, map[string]any{"agent_name": "Support Agent", "agent_avatar_url": ""})
	ws.expect(evAgentThinking, -1, map[string]any{})
	greet := ws.expect(evAgentMessage, 4, nil)
	if agentText(greet) != "Hi, how can I help you today?" {
		t.Fatalf("greeting = %v", greet)
	}

	ws.send(evUserMessage, map[string]any{"text": "what are your hours?"}, map[string]any{"custom": map[string]any{"ref": "a1"}})
	echo := ws.expect(evUserMessage, 5, nil)
	if p := echo["payload"].(map[string]any); p["text"] != "what are your hours?" || !strings.HasPrefix(p["message_id"].(string), "msg_") {
		t.Fatalf("echo = %v", echo)
	}
	msgSame(t, "echo metadata", map[string]any{"custom": map[string]any{"ref": "a1"}}, echo["metadata"])
	ws.expect(evAgentThinking, -1, nil)
	reply := ws.expect(evAgentMessage, 6, nil)
	p := reply["payload"].(map[string]any)
	msgSame(t, "reply", map[string]any{"message_id": p["message_id"], "text": "We are open 9am to 5pm, Monday to Friday.",
		"attachments": []any{}, "response_suggestions": []any{}}, p)

	// Typing is not echoed; heartbeats are, without a sequence.
	ws.send(evUserTyping, map[string]any{"state": "TYPING_STATE_STARTED"})
	ws.send(evHeartbeat, map[string]any{})
	ws.expect(evHeartbeat, -1, map[string]any{})

	// Events that are not allowed get a system message; the socket stays open.
	ws.send("EVENT_TYPE_POLY_AGENT_MESSAGE", map[string]any{"text": "x"})
	ws.expect(evSystemMessage, -1, map[string]any{"level": levelError, "message": "Event type not allowed: EVENT_TYPE_POLY_AGENT_MESSAGE"})
	for _, raw := range []string{"not json", `{"type":"hello"}`, `{"payload":{}}`, `{"type":"EVENT_TYPE_USER_MESSAGE","payload":{}}`,
		`{"type":"EVENT_TYPE_USER_TYPING","payload":{"state":"X"}}`} {
		ws.sendRaw([]byte(raw))
		ws.expect(evSystemMessage, -1, map[string]any{"level": levelError, "message": MsgWSInvalid})
	}
	ws.send(evJoinRequest, map[string]any{})
	ws.expect(evJoinRequest, 7, nil)
	ws.expect(evSystemMessage, -1, map[string]any{"level": levelWarning, "message": MsgWSAlreadyIn})

	// The session is a WEBCHAT conversation record.
	convID := h.api.MessagingSessions()[0].ConversationID
	conv, err := h.store.GetConversation("us", convID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Channel != "WEBCHAT" || !conv.InProgress || len(conv.Turns) != 2 || conv.Turns[1].UserInput != "what are your hours?" ||
		conv.Environment != "live" || conv.VariantID != "VARIANT-0000DEF0" || conv.Turns[1].Metadata["ref"] != "a1" {
		t.Fatalf("conversation = %+v", conv)
	}

	ws.send(evUserEnd, map[string]any{})
	ws.expect(evUserEnd, 8, nil)
	ws.expect(evSessionEnd, 9, map[string]any{"reason": reasonUserEnd})
	ws.expectClose(websocket.StatusNormalClosure)
	if conv, _ := h.store.GetConversation("us", convID); conv.InProgress || conv.State["closed_by"] != "user" {
		t.Fatalf("conversation not ended: %+v", conv)
	}
	// An ended session cannot be resumed.
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
}

func TestMessagingSocketStreaming(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	ws := msgDial(t, srv, sid, tok, "")
	start := ws.expect(evBatch, -1, nil)["payload"].(map[string]any)["events"].([]any)[0].(map[string]any)
	msgSame(t, "capabilities", capabilities(true), start["payload"])
	ws.send(evJoinRequest, map[string]any{})
	ws.expect(evJoinRequest, 2, nil)
	ws.expect(evAgentJoined, 3, nil)
	ws.expect(evAgentThinking, -1, nil)
	// "Hi, how can I help you today?" in chunks of 3 words.
	seq := 4
	want := []string{"Hi, how can ", "I help you ", "today?"}
	var msgID string
	for i, text := range want {
		ev := ws.expect(evAgentChunk, seq, nil)
		p := ev["payload"].(map[string]any)
		if i == 0 {
			msgID = p["message_id"].(string)
		}
		msgSame(t, "chunk", map[string]any{"message_id": msgID, "text": text, "attachments": []any{},
			"response_suggestions": []any{}, "chunk_index": i + 1, "is_complete": i == len(want)-1}, p)
		seq++
	}
	ws.send(evUserMessage, map[string]any{"text": "where is order 42"})
	ws.expect(evUserMessage, seq, nil)
	ws.expect(evAgentThinking, -1, nil)
	var text strings.Builder
	for i := 1; ; i++ {
		p := ws.expect(evAgentChunk, seq+i, nil)["payload"].(map[string]any)
		if p["chunk_index"] != float64(i) {
			t.Fatalf("chunk_index = %v, want %d", p["chunk_index"], i)
		}
		text.WriteString(p["text"].(string))
		if p["is_complete"] == true {
			break
		}
	}
	if text.String() != "Thanks, I found order 42. It is on its way." {
		t.Fatalf("chunks join to %q", text.String())
	}
}

func TestChunkText(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want []string
	}{
		{"", 3, []string{""}},
		{"one", 3, []string{"one"}},
		{"a b c d", 2, []string{"a b ", "c d"}},
		{"  lead  and trail  ", 1, []string{"  lead  ", "and ", "trail  "}},
		{"a\nb", 0, []string{"a\n", "b"}},
	} {
		if got := chunkText(tc.text, tc.n); !cmp.Equal(got, tc.want) {
			t.Errorf("chunkText(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
		}
	}
}

// msgHandshake dials and expects an HTTP error.
func msgHandshake(t *testing.T, srv *httptest.Server, sid, tok, cursor string, status int, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, msgDialURL(srv, sid, tok, cursor), nil)
	if err == nil {
		_ = conn.CloseNow()
		t.Fatalf("dial succeeded, want %d", status)
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("dial: %v, response %v; want %d", err, resp, status)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	_ = resp.Body.Close()
	msgSame(t, "handshake error", msgErr(text), body)
}

func TestMessagingSocketHandshakeErrors(t *testing.T) {
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}, {slug: sales, id: "2002"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [localhost]}
  - {kind: connector, key: ct2, account: acme, project: sales, hosts: [localhost]}
`)
	srv := msgServer(h)
	tok := msgToken2(h, "ct")
	other := msgToken2(h, "ct2")
	sid := msgSession(h, tok, false)
	msgHandshake(t, srv, "", tok, "", 400, MsgMessagingBadParams)
	msgHandshake(t, srv, sid, "", "", 401, MsgMessagingAuthFailed)
	msgHandshake(t, srv, sid, "x.y.z", "", 401, MsgMessagingAuthFailed)
	msgHandshake(t, srv, sid, other, "", 401, MsgMessagingAuthFailed)
	msgHandshake(t, srv, "00000000-0000-4000-8000-000000000000", tok, "", 404, MsgMessagingNoSession)

	// A plain GET without the upgrade is refused in JSON.
	r := h.do("GET", "/messaging/ws?session_id="+sid+"&access_token="+tok, nil)
	mustStatus(t, r, 400)
	mustBody(t, r, msgErr(MsgMessagingBadParams))

	// Ten connections per session; the eleventh is refused.
	for range 10 {
		msgDial(t, srv, sid, tok, "")
	}
	msgHandshake(t, srv, sid, tok, "", 429, MsgMessagingTooMany)

	// The access token never reaches the journal in clear.
	for _, e := range h.journal.List(Filter{Path: "/messaging/ws"}) {
		q, _ := url.ParseQuery(e.Query)
		if strings.Contains(e.Query, tok) || q.Get("access_token") != Redacted {
			t.Fatalf("journal query %q", e.Query)
		}
	}
}

func msgToken2(h *harness, key string) string {
	h.t.Helper()
	r := h.do("POST", msgBase+"/access-token", nil, "X-Token", key, "X-Host", "localhost")
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["access_token"].(string)
}

// msgJoin opens a socket, reads the batch and lets the agent join; it
// returns the socket after the greeting.
func msgJoin(t *testing.T, srv *httptest.Server, sid, tok string) *wsClient {
	t.Helper()
	ws := msgDial(t, srv, sid, tok, "")
	ws.expect(evBatch, -1, nil)
	ws.send(evJoinRequest, map[string]any{})
	ws.expect(evJoinRequest, 2, nil)
	ws.expect(evAgentJoined, 3, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentMessage, 4, nil)
	return ws
}

func batchSeqs(t *testing.T, ev map[string]any) []float64 {
	t.Helper()
	var out []float64
	for _, e := range ev["payload"].(map[string]any)["events"].([]any) {
		out = append(out, e.(map[string]any)["sequence"].(float64))
	}
	return out
}

func TestMessagingSocketReplay(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	ws := msgJoin(t, srv, sid, tok)
	ws.send(evUserMessage, map[string]any{"text": "hours"})
	ws.expect(evUserMessage, 5, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentMessage, 6, nil)
	_ = ws.conn.Close(websocket.StatusNormalClosure, "")

	for _, tc := range []struct {
		cursor string
		want   []float64
	}{
		{"", []float64{1, 2, 3, 4, 5, 6}},
		{"4", []float64{1, 5, 6}},
		{"seq:3", []float64{1, 4, 5, 6}},
		{"6", []float64{1}},
		{"junk", []float64{1, 2, 3, 4, 5, 6}},
		{"-2", []float64{1, 2, 3, 4, 5, 6}},
	} {
		ws := msgDial(t, srv, sid, tok, tc.cursor)
		if got := batchSeqs(t, ws.expect(evBatch, -1, nil)); !cmp.Equal(got, tc.want) {
			t.Errorf("cursor %q: replay %v, want %v", tc.cursor, got, tc.want)
		}
		// The replay holds no join, so a reconnecting client skips it.
		_ = ws.conn.Close(websocket.StatusNormalClosure, "")
	}

	// Two sockets of a session both receive the session's events.
	a := msgDial(t, srv, sid, tok, "6")
	b := msgDial(t, srv, sid, tok, "6")
	a.expect(evBatch, -1, nil)
	b.expect(evBatch, -1, nil)
	a.send(evUserMessage, map[string]any{"text": "hours"})
	for _, w := range []*wsClient{a, b} {
		w.expect(evUserMessage, 7, nil)
		w.expect(evAgentThinking, -1, nil)
		w.expect(evAgentMessage, 8, nil)
	}
}

func TestMessagingSessionExpiry(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	ws := msgJoin(t, srv, sid, tok)
	convID := h.api.MessagingSessions()[0].ConversationID

	// Activity re-arms the timer; heartbeats do not count as activity.
	h.clock.Advance(9 * time.Minute)
	ws.send(evUserTyping, map[string]any{"state": "TYPING_STATE_STOPPED"})
	ws.send(evHeartbeat, map[string]any{})
	ws.expect(evHeartbeat, -1, nil) // the typing event is handled by now
	h.clock.Advance(9 * time.Minute)
	ws.send(evHeartbeat, map[string]any{})
	ws.expect(evHeartbeat, -1, nil)
	if len(h.api.MessagingSessions()) != 1 {
		t.Fatal("session expired early")
	}
	h.clock.Advance(time.Minute)
	ws.expect(evSessionEnd, 5, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)
	if conv, _ := h.store.GetConversation("us", convID); conv.InProgress || conv.State["closed_by"] != "expired" {
		t.Fatalf("conversation = %+v", conv)
	}
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
	if n := len(h.api.MessagingSessions()); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}

func TestMessagingSessionIdleLimit(t *testing.T) {
	h := newHarness(t, `
limits: {session_idle: 1m}
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [localhost]}
`)
	srv := msgServer(h)
	tok := msgToken2(h, "ct")
	sid := msgSession(h, tok, false)
	h.clock.Advance(time.Minute)
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
}

func TestMessagingAgentEndAndHandoff(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)

	sid := msgSession(h, tok, false)
	ws := msgJoin(t, srv, sid, tok)
	ws.send(evUserMessage, map[string]any{"text": "bye"})
	ws.expect(evUserMessage, 5, nil)
	ws.expect(evAgentThinking, -1, nil)
	if ev := ws.expect(evAgentMessage, 6, nil); agentText(ev) != "Goodbye!" {
		t.Fatalf("reply %v", ev)
	}
	ws.expect(evSessionEnd, 7, map[string]any{"reason": reasonNaturalEnd})
	ws.expectClose(websocket.StatusNormalClosure)

	sid = msgSession(h, tok, false)
	ws = msgJoin(t, srv, sid, tok)
	ws.send(evUserMessage, map[string]any{"text": "I want a human"})
	ws.expect(evUserMessage, 5, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentMessage, 6, nil)
	ws.expect(evAgentHandoff, 7, map[string]any{"destination": "live_agent_queue", "reason": "customer_request"})
	ws.expect(evAgentLeft, 8, map[string]any{})
	ws.send(evUserMessage, map[string]any{"text": "hello?"})
	ws.expect(evUserMessage, 9, nil)
	ws.expect(evSystemMessage, -1, map[string]any{"level": levelWarning, "message": MsgWSAgentLeft})
	convID := h.api.MessagingSessions()[0].ConversationID
	if _, err := h.store.GetHandoffState("us", "1001", "2001", convID, ""); err != nil {
		t.Fatalf("handoff state: %v", err)
	}
}

func TestMessagingMessageBeforeJoin(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	ws := msgDial(t, srv, msgSession(h, tok, false), tok, "")
	ws.expect(evBatch, -1, nil)
	ws.send(evUserMessage, map[string]any{"text": "hi"})
	ws.expect(evUserMessage, 2, nil)
	ws.expect(evSystemMessage, -1, map[string]any{"level": levelWarning, "message": MsgWSNotJoined})
	if n, _ := h.store.CountConversations("us"); n != 0 {
		t.Fatalf("%d conversations before the join", n)
	}
}

func TestMessagingMessageTooBig(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	ws := msgDial(t, srv, msgSession(h, tok, false), tok, "")
	ws.expect(evBatch, -1, nil)
	big, _ := json.Marshal(map[string]any{"type": evUserMessage, "payload": map[string]any{"text": strings.Repeat("x", 128<<10)}})
	ws.sendRaw(big)
	ws.expectClose(websocket.StatusMessageTooBig)
}

func TestMessagingCloseAndReset(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	ws := msgJoin(t, srv, msgSession(h, tok, false), tok)
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	ws.expectClose(wsCloseRestart)
	if n := len(h.api.MessagingSessions()); n != 0 {
		t.Fatalf("%d sessions after reset", n)
	}

	// Close never hangs with sockets open, and drops them.
	tok = msgToken(h)
	ws = msgJoin(t, srv, msgSession(h, tok, false), tok)
	done := make(chan struct{})
	go func() { h.api.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("API.Close hangs with an open socket")
	}
	if _, err := ws.tryRead(5 * time.Second); err == nil {
		t.Fatal("socket still open after Close")
	}
}

// ---------------------------------------------------------------- faults

func msgFault(h *harness, path, preset string) {
	h.t.Helper()
	if _, err := h.faults.Add(faultRule("messaging", path, preset)); err != nil {
		h.t.Fatal(err)
	}
}

func TestMessagingPresetExpireAfterMessages(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", faults.PresetExpireSessionAfter+":1")
	ws := msgJoin(t, srv, sid, tok)
	ws.send(evUserMessage, map[string]any{"text": "hours"})
	ws.expect(evUserMessage, 5, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentMessage, 6, nil)
	ws.expect(evSessionEnd, 7, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)
}

func TestMessagingPresetExpireNow(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", faults.PresetExpireSession)
	ws := msgDial(t, srv, sid, tok, "")
	ws.expect(evBatch, -1, nil)
	ws.expect(evSessionEnd, 2, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)

	h.faults.Clear()
	msgFault(h, "/api/v1/sessions", faults.PresetExpireSession)
	sid = msgSession(h, tok, false)
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
}

func TestMessagingPresetExpireToken(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	msgFault(h, "/api/v1/access-token", faults.PresetExpireToken)
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	mustStatus(t, r, 200)
	if r.Map(t)["expires_in"] != float64(0) {
		t.Fatalf("expires_in = %v", r.Map(t)["expires_in"])
	}
	expired := r.Map(t)["access_token"].(string)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "Bearer "+expired), 401)

	h.faults.Clear()
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", faults.PresetExpireToken)
	msgHandshake(t, srv, sid, tok, "", 401, MsgMessagingAuthFailed)
}

func TestMessagingPresetDropSocket(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	msgFault(h, "/ws", faults.PresetDropSocket)
	ws := msgDial(t, srv, sid, tok, "")
	ws.expect(evBatch, -1, nil)
	ws.send(evJoinRequest, map[string]any{})
	ws.expect(evJoinRequest, 2, nil)
	ws.expect(evAgentJoined, 3, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentChunk, 4, nil)
	_, err := ws.tryRead(5 * time.Second)
	if err == nil || websocket.CloseStatus(err) != -1 {
		t.Fatalf("socket not dropped: %v", err)
	}
	// Reconnecting from the last sequence seen replays the rest.
	h.faults.Clear()
	ws = msgDial(t, srv, sid, tok, "4")
	if got := batchSeqs(t, ws.expect(evBatch, -1, nil)); !cmp.Equal(got, []float64{1, 5, 6}) {
		t.Fatalf("replay %v", got)
	}
}

func TestMessagingPresetStallAndDelay(t *testing.T) {
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	msgFault(h, "/ws", faults.PresetStallChunks)
	stalled := msgDial(t, srv, sid, tok, "")
	h.faults.Clear()
	msgFault(h, "/ws", faults.PresetDelayChunks+":30ms")
	slow := msgDial(t, srv, sid, tok, "")
	stalled.expect(evBatch, -1, nil)
	slow.expect(evBatch, -1, nil)
	begin := time.Now()
	slow.send(evJoinRequest, map[string]any{})
	for _, w := range []*wsClient{stalled, slow} {
		w.expect(evJoinRequest, 2, nil)
		w.expect(evAgentJoined, 3, nil)
		w.expect(evAgentThinking, -1, nil)
		w.expect(evAgentChunk, 4, nil)
	}
	slow.expect(evAgentChunk, 5, nil)
	slow.expect(evAgentChunk, 6, nil)
	if d := time.Since(begin); d < 90*time.Millisecond {
		t.Fatalf("three delayed chunks took %v", d)
	}
	if ev, err := stalled.tryRead(200 * time.Millisecond); err == nil {
		t.Fatalf("stalled socket delivered %v", ev)
	}
}

// faultRule is a preset rule of a family on a path.
func faultRule(family, path, preset string) faults.Rule {
	return faults.Rule{Match: faults.Match{Family: family, Path: path}, Action: faults.Action{Preset: preset}}
}
