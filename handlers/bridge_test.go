package handlers

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

const bridgePath = "/runtime/us-1/internal/v1/agentic-dial/bridge-ended"

var eeHeaders = []string{"X-Api-Key", "test-external-events-key", "Content-Type", "application/json"}

func bridgeBody(id string) map[string]any {
	return map[string]any{"conversation_id": id, "bridge_duration_seconds": 180, "call_duration_seconds": 300.5}
}

func TestBridgeEndedOutboundCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid := outCall(h, map[string]any{"to_number": "+14155552671"})
	h.advance(12 * time.Second) // answered at 10 s
	r := h.do("POST", bridgePath, bridgeBody(sid), eeHeaders...)
	mustStatus(t, r, 200)
	if len(r.Body) != 0 {
		t.Fatalf("body %q", r.Body)
	}
	conv, err := h.store.GetConversation("us", sid)
	if err != nil {
		t.Fatal(err)
	}
	if conv.InProgress || !conv.EndedAt.Equal(h.clock.Now()) || conv.State["closed_by"] != "bridge" ||
		conv.Metrics["BRIDGE_DURATION"] != "180" || conv.Metrics["CALL_DURATION"] != "300.5" {
		t.Fatalf("conversation = %+v", conv)
	}
	// The call succeeds at once; its retention counts from now.
	outStatus(h, sid, "success", "")
	h.unchanged(t, func() { mustStatus(t, h.do("POST", bridgePath, bridgeBody(sid), eeHeaders...), 200) })
	h.advance(2*time.Hour - time.Second)
	outStatus(h, sid, "success", "")
	h.advance(time.Second)
	outGone(h, sid)
}

func TestBridgeEndedInboundCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, err := h.api.CallNumber("+14155550150", "+14155550999")
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.do("POST", bridgePath, bridgeBody(res.ConversationID), eeHeaders...), 200)
	conv, err := h.store.GetConversation("us", res.ConversationID)
	if err != nil || conv.InProgress || conv.State["closed_by"] != "bridge" {
		t.Fatalf("conversation = %+v, %v", conv, err)
	}
}

func TestBridgeEndedRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        outbound: {enabled: true}
        connectors: [{id: CONN, name: Line, client_env: live, phone_numbers: ["+14155550150"]}]
      - slug: sales
        id: "2002"
  - slug: globex
    id: "3001"
    projects: [{slug: help, id: "4001"}]
credentials:
  - {kind: external_events, key: test-external-events-key, account: acme}
  - {kind: external_events, key: sales-key, account: acme, project: sales}
  - {kind: external_events, key: globex-key, account: globex}
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support, client_env: live}
`)
	call, err := h.api.CallNumber("+14155550150", "")
	if err != nil {
		t.Fatal(err)
	}
	r := h.do("POST", chatBase+"/create", nil, chatHeaders...)
	mustStatus(t, r, 200)
	chat := r.Map(t)["conversation_id"].(string)
	for _, tc := range []struct {
		name    string
		body    any
		headers []string
		status  int
		msg     string
	}{
		{"no body", nil, eeHeaders, 400, MsgBodyRequired},
		{"no id", map[string]any{"bridge_duration_seconds": 1, "call_duration_seconds": 2}, eeHeaders, 400, engine.MsgBridgeIDRequired},
		{"no bridge duration", map[string]any{"conversation_id": call.ConversationID, "call_duration_seconds": 2}, eeHeaders, 400,
			"bridge_duration_seconds must be a non-negative number."},
		{"negative call duration", map[string]any{"conversation_id": call.ConversationID, "bridge_duration_seconds": 1, "call_duration_seconds": -2},
			eeHeaders, 400, "call_duration_seconds must be a non-negative number."},
		{"duration not a number", map[string]any{"conversation_id": call.ConversationID, "bridge_duration_seconds": "1", "call_duration_seconds": 2},
			eeHeaders, 400, `Field "bridge_duration_seconds" must be a number.`},
		{"unknown conversation", bridgeBody("CA00000000000000000000000000000000"), eeHeaders, 400, engine.MsgBridgeConversation},
		{"a chat", bridgeBody(chat), eeHeaders, 400, engine.MsgBridgeConversation},
		{"another project's key", bridgeBody(call.ConversationID), []string{"X-Api-Key", "sales-key"}, 400, engine.MsgBridgeConversation},
		{"another account's key", bridgeBody(call.ConversationID), []string{"X-Api-Key", "globex-key"}, 400, engine.MsgBridgeConversation},
		{"no key", bridgeBody(call.ConversationID), nil, 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				r := h.do("POST", bridgePath, tc.body, tc.headers...)
				mustStatus(t, r, tc.status)
				if tc.msg != "" {
					mustBody(t, r, map[string]any{"error_message": tc.msg})
				}
			})
		})
	}
}
