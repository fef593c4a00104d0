package handlers

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// ---------------------------------------------------------------- socket

func TestMessagingSocketSequence(t *testing.T) {
	t.Parallel()
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
		`{"type":"EVENT_TYPE_USER_TYPING","payload":{"state":"X"}}`,
		// The strict JSON reader's rules (body.go): one value, no key twice.
		`{"type":"EVENT_TYPE_HEARTBEAT","payload":{}}}}`, `{"type":"EVENT_TYPE_HEARTBEAT","type":"EVENT_TYPE_USER_MESSAGE","payload":{"text":"x"}}`} {
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

func batchSeqs(t *testing.T, ev map[string]any) []float64 {
	t.Helper()
	var out []float64
	for _, e := range ev["payload"].(map[string]any)["events"].([]any) {
		out = append(out, e.(map[string]any)["sequence"].(float64))
	}
	return out
}

func TestMessagingSocketReplay(t *testing.T) {
	t.Parallel()
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

func TestMessagingAgentEndAndHandoff(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	ws := msgDial(t, srv, msgSession(h, tok, false), tok, "")
	ws.expect(evBatch, -1, nil)
	big, _ := json.Marshal(map[string]any{"type": evUserMessage, "payload": map[string]any{"text": strings.Repeat("x", 128<<10)}})
	ws.sendRaw(big)
	ws.expectClose(websocket.StatusMessageTooBig)
}

func TestMessagingPresetDropSocket(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	msgFault(h, "/ws", PresetDropSocket)
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
	t.Parallel()
	h := newHarness(t)
	srv := msgServer(h)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	msgFault(h, "/ws", PresetStallChunks)
	stalled := msgDial(t, srv, sid, tok, "")
	h.faults.Clear()
	msgFault(h, "/ws", PresetDelayChunks+":30ms")
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
	// The stalled socket delivers nothing more: once the session ends, its
	// writer (which sends in order) skips the rest of the reply and the
	// session end, and closes.
	if err := h.api.ExpireMessagingSession(sid); err != nil {
		t.Fatal(err)
	}
	if ev, err := stalled.tryRead(5 * time.Second); err == nil {
		t.Fatalf("stalled socket delivered %v", ev)
	}
}
