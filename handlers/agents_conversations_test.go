package handlers

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/wav"
)

const agentConvBase = agentsBase + "/support/conversations"

// convSummary is the list's form of a conversation of agent 2001 of
// account 1001 with the default variant; over changes fields.
func convSummary(id string, started, finished string, seconds int, over map[string]any) map[string]any {
	m := map[string]any{"accountId": "1001", "audioUrl": nil, "channel": "CHAT", "clientEnv": "live", "conversationId": id,
		"createdAt": started, "deploymentId": nil, "direction": "inbound", "duration": seconds, "finishedAt": nil,
		"fromNumber": nil, "handoff": false, "handoffDestination": nil, "handoffReason": nil, "inProgress": true,
		"language": nil, "note": nil, "polyScore": nil, "polyaiDuration": seconds, "projectId": "2001", "shortSummary": nil,
		"startedAt": started, "tags": []any{}, "toNumber": nil, "totalDuration": seconds, "variantId": "VARIANT-0000DEF0"}
	if finished != "" {
		m["finishedAt"], m["inProgress"] = finished, false
	}
	for k, v := range over {
		m[k] = v
	}
	return m
}

// convTurn is a turn as the get shows it.
func convTurn(id int, user, userAt, agent, agentAt string, latency float64, intents ...string) map[string]any {
	in := []any{}
	for _, s := range intents {
		in = append(in, s)
	}
	return map[string]any{"agent_response": agent, "agent_response_datetime": agentAt, "asr_lang_code": "", "barge_in": false,
		"english_agent_response": "", "entities": nil, "intents": in, "is_ood": false, "is_silence": false,
		"latency":      map[string]any{"label": nil, "perceived_latency": latency, "perceived_latency_percentile_1d": nil},
		"llm_requests": []any{}, "metadata": map[string]any{}, "reviews": []any{}, "translated_user_input": "",
		"tts_lang_code": "", "turn_id": id, "user_input": user, "user_input_audio_url": "", "user_input_datetime": userAt,
		"user_input_dtmf": "", "user_input_dtmf_finish_key": ""}
}

// chatOnce runs a chat: the greeting, one message a second later, closed
// a second after that. It returns the conversation id.
func chatOnce(h *harness, msg string) string {
	h.t.Helper()
	r := h.do("POST", chatBase+"/create", nil, chatHeaders...)
	mustStatus(h.t, r, 200)
	id := r.Map(h.t)["conversation_id"].(string)
	h.advance(time.Second)
	mustStatus(h.t, h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": id, "message": msg}, chatHeaders...), 200)
	h.advance(time.Second)
	mustStatus(h.t, h.do("PUT", chatBase+"/close", map[string]any{"conversation_id": id}, chatHeaders...), 200)
	return id
}

func TestAgentConversationGet(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	id := chatOnce(h, "what are your hours?")
	want := convSummary(id, "2026-01-01T00:00:00.000000+00:00", "2026-01-01T00:00:02.000000+00:00", 2, nil)
	want["turns"] = []any{
		convTurn(1, "", "2026-01-01T00:00:00.000000+00:00", "Hi, how can I help you today?", "2026-01-01T00:00:00.000000+00:00", 0),
		convTurn(2, "what are your hours?", "2026-01-01T00:00:01.000000+00:00", "We are open 9am to 5pm, Monday to Friday.",
			"2026-01-01T00:00:01.800000+00:00", 0.8, "opening_hours"),
	}
	want["metrics"], want["functionEvents"] = map[string]any{}, map[string]any{}
	for _, agent := range []string{"support", "2001", "PROJECT-2001"} {
		r := h.do("GET", agentsBase+"/"+agent+"/conversations/"+id, nil, builderHeaders...)
		mustStatus(t, r, 200)
		mustBody(t, r, want)
	}
}

func TestAgentConversationMetricsAndAccess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        dialogue:
          rules:
            - {name: score, when: {contains: score}, then: {reply: Noted., metric: {CSAT: "5"}}}
      - slug: private
        id: "2002"
        data_access: {transcripts: false, metrics: false}
        dialogue:
          rules:
            - {name: score, when: {contains: score}, then: {reply: Noted., metric: {CSAT: "5"}}}
credentials:
  - {kind: chat, key: chat-a, account: acme, project: support}
  - {kind: connector, key: tok-a, account: acme, project: support, client_env: live}
  - {kind: chat, key: chat-b, account: acme, project: private}
  - {kind: connector, key: tok-b, account: acme, project: private, client_env: live}
  - {kind: builder, key: test-builder-key, account: acme}
`)
	say := func(project, key, tok string) string {
		t.Helper()
		hdr := []string{"X-API-KEY", key, "X-TOKEN", tok}
		r := h.do("POST", "/runtime/us-1/v1/acme/"+project+"/chat/create", nil, hdr...)
		mustStatus(t, r, 200)
		id := r.Map(t)["conversation_id"].(string)
		mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/"+project+"/chat/respond", map[string]any{"conversation_id": id, "message": "my score"}, hdr...), 200)
		return id
	}
	open := say("support", "chat-a", "tok-a")
	r := h.do("GET", agentConvBase+"/"+open, nil, builderHeaders...)
	mustStatus(t, r, 200)
	got := r.Map(t)
	mustBody(t, response{Body: mustJSON(t, got["metrics"])}, map[string]any{"CSAT": []any{
		map[string]any{"timestamp": "2026-01-01T00:00:00.800000", "value": "5"}}})
	hidden := say("private", "chat-b", "tok-b")
	r = h.do("GET", agentsBase+"/private/conversations/"+hidden, nil, builderHeaders...)
	mustStatus(t, r, 200)
	got = r.Map(t)
	if len(got["turns"].([]any)) != 0 || len(got["metrics"].(map[string]any)) != 0 {
		t.Fatalf("data access off shows turns %v, metrics %v", got["turns"], got["metrics"])
	}
	// A conversation of another agent is not found there.
	r = h.do("GET", agentConvBase+"/"+hidden, nil, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"message": engine.MsgConvNotExist, "errors": []any{}})
}

func TestAgentConversationNotFound(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	for _, tc := range []struct {
		name, path string
		headers    []string
		status     int
		msg        string
	}{
		{"unknown conversation", agentConvBase + "/CONV-0000000000", builderHeaders, 404, engine.MsgConvNotExist},
		{"unknown audio", agentConvBase + "/CONV-0000000000/audio", builderHeaders, 404, engine.MsgConvNotExist},
		{"unknown agent", agentsBase + "/nope/conversations/CONV-0000000000", builderHeaders, 404, engine.MsgAgentNotFound},
		{"unknown agent list", agentsBase + "/nope/conversations", builderHeaders, 404, engine.MsgAgentNotFound},
		{"another account", agentsBase + "/2001/conversations", []string{"x-api-key", "globex-builder-key"}, 403, engine.MsgNoPermission},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do("GET", tc.path, nil, tc.headers...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, map[string]any{"message": tc.msg, "errors": []any{}})
		})
	}
}

// wavSeconds checks a WAV answer and returns its length in seconds.
func wavSeconds(t *testing.T, r response) float64 {
	t.Helper()
	mustStatus(t, r, 200)
	if ct := r.Header.Get("Content-Type"); ct != "audio/wav" {
		t.Fatalf("Content-Type %q", ct)
	}
	b := r.Body
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" || binary.LittleEndian.Uint32(b[40:]) != uint32(len(b)-44) {
		t.Fatalf("not a WAV file: %d bytes", len(b))
	}
	return float64(len(b)-44) / 2 / wav.SampleRate
}

func TestAgentConversationAudio(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid := outCall(h, map[string]any{"to_number": "+14155552671"})
	h.advance(10 * time.Second) // answered: the greeting
	audio := agentConvBase + "/" + sid + "/audio"
	h.unchanged(t, func() {
		r := h.do("GET", audio, nil, builderHeaders...)
		mustStatus(t, r, 404) // no recording while the call goes on
		mustBody(t, r, map[string]any{"message": convquery.MsgRecordingNotFound, "errors": []any{}})
	})
	if _, err := h.api.Say(sid, "what are your hours?"); err != nil {
		t.Fatal(err)
	}
	h.advance(30 * time.Second) // the call ends
	// greeting (7 words) and the hours answer (9 words) said by the
	// agent, the question (4 words) by the callee: 0.4 s a word, 0.3 s
	// after each utterance.
	const seconds = 7*0.4 + 0.3 + 4*0.4 + 0.3 + 9*0.4 + 0.3
	combined := h.do("GET", audio, nil, builderHeaders...)
	for _, q := range []string{"", "?direction=combined", "?direction=user", "?direction=agent&redacted=true"} {
		if got := wavSeconds(t, h.do("GET", audio+q, nil, builderHeaders...)); got < seconds-1e-9 || got > seconds+1e-9 {
			t.Fatalf("%s: %v s, want %v", q, got, seconds)
		}
	}
	if !bytes.Equal(combined.Body, h.do("GET", audio+"?redacted=true", nil, builderHeaders...).Body) {
		t.Fatal("the redacted recording differs")
	}
	if bytes.Equal(combined.Body, h.do("GET", audio+"?direction=user", nil, builderHeaders...).Body) {
		t.Fatal("the user side is the combined recording")
	}
	// The same seed and turns give the same bytes in another instance.
	h2 := newHarness(t)
	sid2 := outCall(h2, map[string]any{"to_number": "+14155552671"})
	h2.advance(10 * time.Second)
	if _, err := h2.api.Say(sid2, "what are your hours?"); err != nil {
		t.Fatal(err)
	}
	h2.advance(30 * time.Second)
	if r := h2.do("GET", agentsBase+"/support/conversations/"+sid2+"/audio", nil, builderHeaders...); !bytes.Equal(combined.Body, r.Body) {
		t.Fatal("the same conversation in another instance gave other bytes")
	}
	// The get names the recording.
	r := h.do("GET", agentConvBase+"/"+sid, nil, builderHeaders...)
	mustStatus(t, r, 200)
	if got := r.Map(t); got["audioUrl"] != "conversations/"+sid+"/audio" || got["direction"] != "outbound" || got["channel"] != "VOICE-SIP" {
		t.Fatalf("audioUrl %v, direction %v, channel %v", got["audioUrl"], got["direction"], got["channel"])
	}

	chat := chatOnce(h, "hello")
	for _, tc := range []struct {
		name, query string
		status      int
		want        any
	}{
		{"a chat has none", "/" + chat + "/audio", 404, map[string]any{"message": convquery.MsgRecordingNotFound, "errors": []any{}}},
		{"bad direction", "/" + sid + "/audio?direction=both", 400, map[string]any{"message": engine.MsgValidationFailed,
			"errors": []any{map[string]any{"field": "direction", "message": "must be one of: combined, user, agent"}}}},
		{"bad redacted", "/" + sid + "/audio?redacted=yes", 400, map[string]any{"message": engine.MsgValidationFailed,
			"errors": []any{map[string]any{"field": "redacted", "message": "must be a boolean"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do("GET", agentConvBase+tc.query, nil, builderHeaders...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, tc.want)
		})
	}
}

func TestAgentConversationList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := chatOnce(h, "hello")                                 // 00:00:00
	b := debugChat(h, map[string]any{"clientEnv": "sandbox"}) // 00:00:02
	h.advance(time.Second)
	c := chatOnce(h, "hello")                              // 00:00:03
	d := debugChat(h, map[string]any{"clientEnv": "live"}) // 00:00:05
	h.advance(time.Second)
	sbHeaders := sandboxChatHeaders
	r := h.do("POST", chatBase+"/create", nil, sbHeaders...) // 00:00:06, in progress
	mustStatus(t, r, 200)
	e := r.Map(t)["conversation_id"].(string)
	newestFirst := []string{e, d, c, b, a}
	ids := func(r response) []string {
		t.Helper()
		mustStatus(t, r, 200)
		var out []string
		for _, c := range r.Map(t)["conversations"].([]any) {
			out = append(out, c.(map[string]any)["conversationId"].(string))
		}
		return out
	}
	for _, tc := range []struct {
		query         string
		limit, offset int
	}{{"", 50, 0}, {"?limit=2", 2, 0}, {"?limit=2&offset=1", 2, 1}, {"?limit=2&offset=2", 2, 2}, {"?limit=2&offset=3", 2, 3},
		{"?limit=1&offset=4", 1, 4}, {"?offset=5", 50, 5}, {"?limit=100&offset=9", 100, 9}} {
		r := h.do("GET", agentConvBase+tc.query, nil, builderHeaders...)
		want := newestFirst[min(tc.offset, 5):min(tc.offset+tc.limit, 5)]
		if got := ids(r); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: %v, want %v", tc.query, got, want)
		}
		m := r.Map(t)
		if m["count"] != 5.0 || m["limit"] != float64(tc.limit) || m["offset"] != float64(tc.offset) {
			t.Errorf("%s: count %v limit %v offset %v", tc.query, m["count"], m["limit"], m["offset"])
		}
	}
	r = h.do("GET", agentConvBase+"?limit=1", nil, builderHeaders...)
	mustBody(t, r, map[string]any{"conversations": []any{convSummary(e, "2026-01-01T00:00:06.000000+00:00", "", 0,
		map[string]any{"clientEnv": "sandbox"})}, "count": 5, "limit": 1, "offset": 0})

	for _, tc := range []struct {
		query  string
		fields []any
	}{
		{"?limit=0", []any{map[string]any{"field": "limit", "message": "must be an integer from 1 to 100"}}},
		{"?limit=101", []any{map[string]any{"field": "limit", "message": "must be an integer from 1 to 100"}}},
		{"?limit=x&offset=-1", []any{map[string]any{"field": "limit", "message": "must be an integer from 1 to 100"},
			map[string]any{"field": "offset", "message": "must be an integer of at least 0"}}},
	} {
		r := h.do("GET", agentConvBase+tc.query, nil, builderHeaders...)
		mustStatus(t, r, 400)
		mustBody(t, r, map[string]any{"message": engine.MsgValidationFailed, "errors": tc.fields})
	}
}
