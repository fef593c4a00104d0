package mockplatform

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const callsScenario = `
clock: {start: 2026-03-01T12:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        dni: {numbers: ["+14155550100"], window: 2m}
        dialogue:
          greeting: "Hello {{.Attributes.name}}"
          rules:
            - name: live_agent
              when: {contains: agent}
              then:
                reply: Transferring you.
                handoff:
                  destination: queue_a
                  reason: asked
                  data: {name: "{{.Attributes.name}}", note: "{{.Message}}"}
            - name: refund
              when: {contains: refund}
              then: {reply: Refunds take five days.}
credentials:
  - {kind: dni, key: dni-key, account: acme, project: support}
  - {kind: conversations, key: conv-key, account: acme}
  - {kind: chat, key: chat-key, account: acme, project: support}
  - {kind: connector, key: conn-token, account: acme, project: support, client_env: live}
  - {kind: handoff, key: handoff-key, account: acme}
`

func TestDialReservedNumber(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(callsScenario)), WithoutListener())
	status, body := call(t, p, "POST", p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation",
		`{"attributes":{"name":"Ada","cart":{"items":[1,2]}}}`, "x-api-key", "dni-key")
	if status != 200 || body["dni"] != "+14155550100" {
		t.Fatalf("reserve: %d %v", status, body)
	}
	// The Go method.
	res, err := p.Dial("+14155550100", "+447700900123")
	if err != nil {
		t.Fatal(err)
	}
	if res.Response != "Hello Ada" || !strings.HasPrefix(res.ConversationID, "CA") {
		t.Errorf("dial = %+v", res)
	}
	c, err := p.Conversation(res.ConversationID)
	if err != nil || c.Channel != "VOICE-SIP" || c.FromNumber != "+447700900123" {
		t.Fatalf("conversation: %+v %v", c, err)
	}
	// The control plane does the same.
	status, body = call(t, p, "POST", p.URL()+"/_mock/dni/dial", `{"number":"+14155550100","from":"+15550001"}`)
	if status != 200 || body["response"] != "Hello Ada" || body["conversation_id"] == res.ConversationID {
		t.Errorf("control dial: %d %v", status, body)
	}
	// After the window: not routed.
	p.Advance(2 * time.Minute)
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Errorf("dial after the window: %v", err)
	}
	status, body = call(t, p, "POST", p.URL()+"/_mock/dni/dial", `{"number":"+14155550100"}`)
	if status != 404 || !strings.Contains(body["error"].(string), "no active reservation") {
		t.Errorf("control dial after the window: %d %v", status, body)
	}
	status, _ = call(t, p, "POST", p.URL()+"/_mock/dni/dial", `{}`)
	if status != 400 {
		t.Errorf("control dial without number: %d", status)
	}
	// Reset drops the reservation.
	if _, err := reserveAgain(t, p); err != nil {
		t.Fatal(err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Errorf("dial after reset: %v", err)
	}
}

// reserveAgain reserves the number again (used before a reset).
func reserveAgain(t *testing.T, p *Platform) (int, error) {
	t.Helper()
	status, body := call(t, p, "POST", p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation", `{"attributes":{}}`, "x-api-key", "dni-key")
	if status != 200 {
		return status, errors.New("reserve failed: " + body["message"].(string))
	}
	return status, nil
}

// TestGeneratedDataSurvivesReset: generation is paid once per load; Reset
// restores the same records.
func TestGeneratedDataSurvivesReset(t *testing.T) {
	t.Parallel()
	yaml := strings.Replace(callsScenario, "        dialogue:",
		"        generate: [{count: 100, from: 2026-02-01T00:00:00Z, to: 2026-02-02T00:00:00Z}]\n        dialogue:", 1)
	p := Start(t, WithScenarioYAML([]byte(yaml)), WithoutListener())
	count := func() int {
		n, err := p.Store().CountConversations("us")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 100 {
		t.Fatalf("generated %d", n)
	}
	if _, err := p.Dial("+14155550100", ""); !errors.Is(err, ErrNotRouted) {
		t.Fatalf("dial without reservation: %v", err)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 100 {
		t.Errorf("after reset: %d", n)
	}
}

// dialReserved reserves the pool's number with attributes and dials it
// through the control plane: the call's conversation id.
func dialReserved(t *testing.T, p *Platform, attrs string) string {
	t.Helper()
	status, body := call(t, p, "POST", p.RuntimeURL("us-1")+"/v1/conversations/dni-reservation", `{"attributes":`+attrs+`}`, "x-api-key", "dni-key")
	if status != 200 {
		t.Fatalf("reserve: %d %v", status, body)
	}
	status, body = call(t, p, "POST", p.URL()+"/_mock/dni/dial", `{"number":"`+body["dni"].(string)+`"}`)
	if status != 200 {
		t.Fatalf("dial: %d %v", status, body)
	}
	return body["conversation_id"].(string)
}

// TestCallSayAndHangup drives a dialled call through the control plane:
// the caller speaks, is handed off (readable through the Handoff API),
// and another call is hung up; then the errors of both routes.
func TestCallSayAndHangup(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(callsScenario)), WithoutListener())
	id := dialReserved(t, p, `{"name":"Ada"}`)
	calls := p.URL() + "/_mock/calls/"

	status, body := call(t, p, "POST", calls+id+"/say", `{"text":"I need a refund"}`)
	if diff := cmp.Diff(map[string]any{"conversation_id": id, "response": "Refunds take five days.", "end_conversation": false}, body); status != 200 || diff != "" {
		t.Errorf("say: %d (-want +got):\n%s", status, diff)
	}
	status, body = call(t, p, "POST", calls+id+"/say", `{"text":"agent please"}`)
	want := map[string]any{"conversation_id": id, "response": "Transferring you.", "end_conversation": true,
		"handoff": map[string]any{"destination": "queue_a", "reason": "asked"}}
	if diff := cmp.Diff(want, body); status != 200 || diff != "" {
		t.Errorf("say agent: %d (-want +got):\n%s", status, diff)
	}
	status, body = call(t, p, "GET", p.RuntimeURL("us-1")+"/v1/acme/support/handoff_state?id="+id, "", "x-api-key", "handoff-key")
	if diff := cmp.Diff(map[string]any{"id": id, "data": map[string]any{"name": "Ada", "note": "agent please"}}, body); status != 200 || diff != "" {
		t.Errorf("handoff state: %d (-want +got):\n%s", status, diff)
	}
	// The call is over.
	if status, body = call(t, p, "POST", calls+id+"/say", `{"text":"hello?"}`); status != 410 {
		t.Errorf("say after the handoff: %d %v", status, body)
	}
	if status, body = call(t, p, "POST", calls+id+"/hangup", ""); status != 410 {
		t.Errorf("hangup after the handoff: %d %v", status, body)
	}

	// Another call, hung up by the caller (the Go method says the same).
	p.Advance(2 * time.Minute) // the first reservation's window
	id2 := dialReserved(t, p, `{"name":"Bo"}`)
	if res, err := p.Say(id2, "refund?"); err != nil || res.Response != "Refunds take five days." || res.Ended {
		t.Errorf("Say = %+v, %v", res, err)
	}
	p.Advance(2 * time.Minute)
	status, body = call(t, p, "POST", calls+id2+"/hangup", "")
	if diff := cmp.Diff(map[string]any{"conversation_id": id2, "ended": true}, body); status != 200 || diff != "" {
		t.Errorf("hangup: %d (-want +got):\n%s", status, diff)
	}
	c, err := p.Conversation(id2)
	if err != nil || c.InProgress || !c.EndedAt.Equal(p.Now()) {
		t.Errorf("hung-up call: %+v %v", c, err)
	}
	if err := p.Hangup(id2); !errors.Is(err, ErrCallEnded) {
		t.Errorf("Hangup twice: %v", err)
	}

	// Errors.
	chat := chatCreateWith(t, p)
	for _, tc := range []struct {
		name, path, body string
		status           int
	}{
		{"no text", id2 + "/say", `{}`, 400},
		{"not JSON", id2 + "/say", `{`, 400},
		{"text not a string", id2 + "/say", `{"text":5}`, 400},
		{"unknown call", "CA-nope/say", `{"text":"hi"}`, 404},
		{"unknown call hangup", "CA-nope/hangup", "", 404},
		{"chat conversation", chat + "/say", `{"text":"hi"}`, 409},
		{"chat conversation hangup", chat + "/hangup", "", 409},
	} {
		status, body := call(t, p, "POST", calls+tc.path, tc.body)
		if msg, _ := body["error"].(string); status != tc.status || msg == "" {
			t.Errorf("%s: %d %v, want %d with an error message", tc.name, status, body, tc.status)
		}
	}
}

func chatCreateWith(t *testing.T, p *Platform) string {
	t.Helper()
	status, body := call(t, p, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", `{}`,
		"X-API-KEY", "chat-key", "X-TOKEN", "conn-token")
	if status != 200 {
		t.Fatalf("chat create: %d %v", status, body)
	}
	return body["conversation_id"].(string)
}

// TestRuntimeFamiliesShareOneWorld checks, through the public HTTP surface,
// that the runtime and data families share one world: a conversation held
// through the chat API is found through the v3 API by transcript search,
// appears in the concurrency series while in progress, and its handoff data
// is readable through the Handoff API; a reset brings the series back.
func TestRuntimeFamiliesShareOneWorld(t *testing.T) {
	t.Parallel()
	p := Start(t, WithScenarioYAML([]byte(callsScenario)), WithoutListener())
	rt := p.RuntimeURL("us-1")
	conc := func() []any {
		t.Helper()
		status, body := call(t, p, "GET", rt+"/v1/acme/support/conversations/concurrency?start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:15:00Z", "",
			"x-api-key", "conv-key")
		if status != 200 {
			t.Fatalf("concurrency: %d %v", status, body)
		}
		var peaks []any
		for _, iv := range body["intervals"].([]any) {
			peaks = append(peaks, iv.(map[string]any)["max_concurrent_conversations"])
		}
		return peaks
	}
	if diff := cmp.Diff([]any{0.0, 0.0, 0.0}, conc()); diff != "" {
		t.Fatalf("series before (-want +got):\n%s", diff)
	}
	id := chatCreateWith(t, p)
	p.Advance(6 * time.Minute)
	keys := []string{"X-API-KEY", "chat-key", "X-TOKEN", "conn-token"}
	if status, body := call(t, p, "POST", rt+"/v1/acme/support/chat/respond", `{"conversation_id":"`+id+`","message":"is a refund possible"}`, keys...); status != 200 {
		t.Fatalf("respond: %d %v", status, body)
	}
	status, body := call(t, p, "GET", rt+"/v3/acme/support/conversations?query_type=transcript&query=refund&start_time=2026-03-01T11:00:00Z&end_time=2026-03-01T13:00:00Z", "",
		"x-api-key", "conv-key")
	list, _ := body["conversations"].([]any)
	if status != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != id || list[0].(map[string]any)["in_progress"] != true {
		t.Fatalf("transcript search: %d %v", status, body)
	}
	// In progress since 12:00, now 12:06: it counts up to now.
	if diff := cmp.Diff([]any{1.0, 1.0, 0.0}, conc()); diff != "" {
		t.Errorf("series while in progress (-want +got):\n%s", diff)
	}
	p.Advance(5 * time.Minute) // 12:11
	if diff := cmp.Diff([]any{1.0, 1.0, 1.0}, conc()); diff != "" {
		t.Errorf("series later (-want +got):\n%s", diff)
	}
	status, body = call(t, p, "POST", rt+"/v1/acme/support/chat/respond", `{"conversation_id":"`+id+`","message":"a human agent please"}`, keys...)
	if status != 200 || body["end_conversation"] != true {
		t.Fatalf("handoff turn: %d %v", status, body)
	}
	status, body = call(t, p, "GET", rt+"/v1/acme/support/handoff_state?id="+id, "", "x-api-key", "handoff-key")
	if diff := cmp.Diff(map[string]any{"id": id, "data": map[string]any{"name": "", "note": "a human agent please"}}, body); status != 200 || diff != "" {
		t.Errorf("handoff state: %d (-want +got):\n%s", status, diff)
	}
	p.Advance(10 * time.Minute) // ended at 12:11
	if diff := cmp.Diff([]any{1.0, 1.0, 1.0}, conc()); diff != "" {
		t.Errorf("series after the end (-want +got):\n%s", diff)
	}
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{0.0, 0.0, 0.0}, conc()); diff != "" {
		t.Errorf("series after reset (-want +got):\n%s", diff)
	}
}

// A call to the default scenario's connector number (+14155550150,
// CONNECTOR-00000001, live) reaches the support agent: a voice
// conversation of the connector's environment, which a caller can talk to.
func TestDialConnectorNumber(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	r, err := p.Dial("+14155550150", "+447700900123")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	conv, err := p.Conversation(r.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Channel != "VOICE-SIP" || conv.Environment != "live" || conv.State["connector_id"] != "CONNECTOR-00000001" ||
		conv.FromNumber != "+447700900123" || !conv.InProgress {
		t.Fatalf("call record = channel %q env %q connector %v from %q in progress %v",
			conv.Channel, conv.Environment, conv.State["connector_id"], conv.FromNumber, conv.InProgress)
	}
	say, err := p.Say(r.ConversationID, "what are your hours?")
	if err != nil || say.Response != "We are open 9am to 5pm, Monday to Friday." {
		t.Fatalf("Say = %+v, %v", say, err)
	}
	if _, err := p.Dial("+19995550000", ""); !errors.Is(err, ErrNotRouted) {
		t.Fatalf("Dial of an unknown number: err = %v, want ErrNotRouted", err)
	}
}
