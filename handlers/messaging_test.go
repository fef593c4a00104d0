package handlers

import (
	"bytes"
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
	r := h.do("POST", msgBase+"/sessions", map[string]any{"streaming_enabled": streaming}, "Authorization", "bearer "+tok)
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
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	mustStatus(t, r, 200)
	body := r.Map(t)
	if body["expires_in"] != float64(86400) || body["token_type"] != "bearer" {
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
	t.Parallel()
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
	t.Parallel()
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

func TestMessagingTokenExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tok := msgToken(h)
	h.advance(24*time.Hour - time.Second)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+tok), 200)
	h.advance(time.Second)
	r := h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+tok)
	mustStatus(t, r, 401)
	mustBody(t, r, msgErr(MsgMessagingInvalidToken))

	// Revocation of every token issued so far.
	tok2 := msgToken(h)
	h.api.ExpireMessagingTokens()
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+tok2), 401)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+msgToken(h)), 200)
}

// keyedScenario is the default scenario with a messaging signing key, so
// that a test can sign tokens as the mock does.
func keyedScenario(key string) string {
	return string(scenarioDefaultYAML()) + "\nmessaging:\n  signing_key: " + key + "\n"
}

const testSigningKey = "0123456789abcdef0123456789abcdef-test"

// signLike signs claims with key the way the mock signs access tokens.
func signLike(t *testing.T, key string, cl accessClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, cl).SignedString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// claimsOf reads a token's claims without checking it.
func claimsOf(t *testing.T, tok string) accessClaims {
	t.Helper()
	var cl accessClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &cl); err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestMessagingTokenGenerations: a token is valid only with a generation
// the mock issued and has not revoked. Even with the signing key (here the
// scenario's), a token claiming a later generation, made to outlive
// revocation, is refused; so are tokens issued before a reset.
func TestMessagingTokenGenerations(t *testing.T) {
	t.Parallel()
	h := newHarness(t, keyedScenario(testSigningKey))
	session := func(tok string) int {
		return h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+tok).Status
	}
	tok := msgToken(h)
	cl := claimsOf(t, tok)
	if cl.Gen != 1 {
		t.Fatalf("first token has gen %d", cl.Gen)
	}
	if session(signLike(t, testSigningKey, cl)) != 200 {
		t.Fatal("a token signed like the mock's is refused: the test signs differently")
	}
	huge := cl
	huge.Gen = 1 << 62
	if got := session(signLike(t, testSigningKey, huge)); got != 401 {
		t.Fatalf("a token with a generation never issued: %d, want 401", got)
	}
	next := cl
	next.Gen = 2 // the next one, not issued yet
	if got := session(signLike(t, testSigningKey, next)); got != 401 {
		t.Fatalf("a token with the next generation: %d, want 401", got)
	}

	h.api.ExpireMessagingTokens()
	if got := session(tok); got != 401 {
		t.Fatalf("after revocation: %d, want 401", got)
	}
	if got := session(signLike(t, testSigningKey, huge)); got != 401 {
		t.Fatalf("after revocation, a huge generation: %d, want 401", got)
	}
	tok2 := msgToken(h)
	if g := claimsOf(t, tok2).Gen; g != 2 {
		t.Fatalf("token after revocation has gen %d, want 2", g)
	}
	if got := session(tok2); got != 200 {
		t.Fatalf("a token issued after revocation: %d", got)
	}

	// A reset revokes every token issued before it; numbering goes on.
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := session(tok2); got != 401 {
		t.Fatalf("a token issued before a reset: %d, want 401", got)
	}
	tok3 := msgToken(h)
	if g := claimsOf(t, tok3).Gen; g != 3 {
		t.Fatalf("token after reset has gen %d, want 3", g)
	}
	if got := session(tok3); got != 200 {
		t.Fatalf("a token issued after the reset: %d", got)
	}
}

// TestMessagingSigningKey: without a scenario key every instance signs
// with a random key of its own, so a token (or the seed GET /_mock/scenario
// shows) is no use against another instance; with the scenario's key the
// same session gives the same token on every instance.
func TestMessagingSigningKey(t *testing.T) {
	t.Parallel()
	a, b := newHarness(t), newHarness(t)
	tokA, tokB := msgToken(a), msgToken(b)
	if tokA == tokB {
		t.Fatal("two instances of the same scenario and seed issued the same token")
	}
	if got := b.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+tokA).Status; got != 401 {
		t.Fatalf("instance A's token on instance B: %d, want 401", got)
	}
	if ka, kb := a.api.MessagingSecret(), b.api.MessagingSecret(); len(ka) != 32 || bytes.Equal(ka, kb) {
		t.Fatalf("the keys are not random keys of each instance's own")
	}

	k1, k2 := newHarness(t, keyedScenario(testSigningKey)), newHarness(t, keyedScenario(testSigningKey))
	if t1, t2 := msgToken(k1), msgToken(k2); t1 != t2 {
		t.Fatalf("the scenario's key gave different tokens:\n%s\n%s", t1, t2)
	} else if _, err := jwt.Parse(t1, func(*jwt.Token) (any, error) { return []byte(testSigningKey), nil },
		jwt.WithTimeFunc(k1.clock.Now)); err != nil {
		t.Fatalf("not signed with the scenario's key: %v", err)
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

// ---------------------------------------------------------------- faults

func msgFault(h *harness, path, preset string) {
	h.t.Helper()
	if _, err := h.faults.Add(faultRule("messaging", path, preset)); err != nil {
		h.t.Fatal(err)
	}
}

func TestMessagingPresetExpireToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	msgFault(h, "/api/v1/access-token", PresetExpireToken)
	r := h.do("POST", msgBase+"/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	mustStatus(t, r, 200)
	if r.Map(t)["expires_in"] != float64(0) {
		t.Fatalf("expires_in = %v", r.Map(t)["expires_in"])
	}
	expired := r.Map(t)["access_token"].(string)
	mustStatus(t, h.do("POST", msgBase+"/sessions", "{}", "Authorization", "bearer "+expired), 401)

	h.faults.Clear()
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", PresetExpireToken)
	msgHandshake(t, srv, sid, tok, "", 401, MsgMessagingAuthFailed)
}

// faultRule is a preset rule of a family on a path.
func faultRule(family, path, preset string) faults.Rule {
	return faults.Rule{Match: faults.Match{Family: family, Path: path}, Action: faults.Action{Preset: preset}}
}
