package handlers

// ---------------------------------------------------------------- sessions

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agentplatform/mockplatform/engine"
)

func TestMessagingSessionCreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tok := msgToken(h)
	forged, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"account_id": "1001",
		"exp": h.clock.Now().Add(time.Hour).Unix(), "iss": engine.MessagingTokenIssuer, "aud": "messaging"}).SignedString([]byte("other secret"))
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
		{"no body", "bearer " + tok, nil, 200, ""},
		{"empty object", "bearer " + tok, "{}", 200, ""},
		{"lowercase scheme", "bearer " + tok, "{}", 200, ""},
		{"all fields", "bearer " + tok, map[string]any{"platform": "ios", "streaming_enabled": true, "device_type": "mobile"}, 200, ""},
		{"no authorization", "", "{}", 400, MsgMessagingMissingToken},
		{"not bearer", "Basic " + tok, "{}", 401, MsgMessagingMissingHeaders},
		{"bearer without token", "bearer ", "{}", 401, MsgMessagingMissingHeaders},
		{"garbage", "bearer abc.def.ghi", "{}", 401, MsgMessagingInvalidToken},
		{"forged", "bearer " + forged, "{}", 401, MsgMessagingInvalidToken},
		{"alg none", "bearer " + none, "{}", 401, MsgMessagingInvalidToken},
		{"tampered", "bearer " + tampered, "{}", 401, MsgMessagingInvalidToken},
		{"bad platform", "bearer " + tok, map[string]any{"platform": "windows"}, 400, MsgMessagingParse},
		{"streaming not bool", "bearer " + tok, map[string]any{"streaming_enabled": "yes"}, 400, MsgMessagingParse},
		{"bad json", "bearer " + tok, "{", 400, MsgMessagingParse},
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
		r := h.do("POST", msgBase+"/sessions", map[string]any{"platform": p}, "Authorization", "bearer "+tok)
		mustStatus(t, r, 200)
	}
}

func TestMessagingSessionExpiry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	ws := msgJoin(t, srv, sid, tok)
	convID := h.api.MessagingSessions()[0].ConversationID

	// Activity re-arms the timer; heartbeats do not count as activity.
	h.advance(9 * time.Minute)
	ws.send(evUserTyping, map[string]any{"state": "TYPING_STATE_STOPPED"})
	ws.send(evHeartbeat, map[string]any{})
	ws.expect(evHeartbeat, -1, nil) // the typing event is handled by now
	h.advance(9 * time.Minute)
	ws.send(evHeartbeat, map[string]any{})
	ws.expect(evHeartbeat, -1, nil)
	if len(h.api.MessagingSessions()) != 1 {
		t.Fatal("session expired early")
	}
	h.advance(time.Minute)
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
	t.Parallel()
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
	h.advance(time.Minute)
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
}

func TestMessagingCloseAndReset(t *testing.T) {
	t.Parallel()
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

	// Close closes every socket with 1001 going away and a reason: a
	// client that reads answers the close frame; one that does not read
	// does not hold Close up (its connection is dropped after a grace),
	// and still finds the close frame when it reads.
	tok = msgToken(h)
	reading := msgJoin(t, srv, msgSession(h, tok, false), tok)
	idle := msgJoin(t, srv, msgSession(h, tok, false), tok)
	closed := make(chan error, 1)
	go func() {
		_, err := reading.tryRead(30 * time.Second)
		closed <- err
	}()
	done := make(chan struct{})
	go func() { h.api.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("API.Close hangs with an open socket")
	}
	want := websocket.CloseError{Code: wsCloseGoingAway, Reason: msgWSShutdown}
	for name, err := range map[string]error{"reading client": <-closed, "idle client": func() error {
		_, err := idle.tryRead(5 * time.Second)
		return err
	}()} {
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce != want {
			t.Errorf("%s: read after Close = %v, want close frame %v", name, err, want)
		}
	}
}

func TestMessagingPresetExpireAfterMessages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", PresetExpireSessionAfter+":1")
	ws := msgJoin(t, srv, sid, tok)
	ws.send(evUserMessage, map[string]any{"text": "hours"})
	ws.expect(evUserMessage, 5, nil)
	ws.expect(evAgentThinking, -1, nil)
	ws.expect(evAgentMessage, 6, nil)
	ws.expect(evSessionEnd, 7, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)
}

func TestMessagingPresetExpireNow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, false)
	msgFault(h, "/ws", PresetExpireSession)
	ws := msgDial(t, srv, sid, tok, "")
	ws.expect(evBatch, -1, nil)
	ws.expect(evSessionEnd, 2, map[string]any{"reason": reasonAbandoned})
	ws.expectClose(wsCloseExpired)

	h.faults.Clear()
	msgFault(h, "/api/v1/sessions", PresetExpireSession)
	sid = msgSession(h, tok, false)
	msgHandshake(t, srv, sid, tok, "", 404, MsgMessagingNoSession)
}
